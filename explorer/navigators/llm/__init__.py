"""The parts of the LLM navigator (``openai:``, ``ollama:``, ``vllm:`` and ``local:`` models), one job per module.

- :mod:`.settings` — the model id and the environment read into one frozen :class:`~.settings.Settings`;
- :mod:`.options` — the options after a model id's ``@`` (sampling, structured output, prompt files, a local
  server's threads, context and slots);
- :mod:`.prompt` — the messages sent (the system prompt and the offer written out, or the user's prompt files);
- :mod:`.schema` — structured output: the JSON schema of an answer to one offer, in each server's shape;
- :mod:`.cache` — the response cache on disk, keyed on the whole request;
- :mod:`.retry` — which answers are retried and how long to wait (``Retry-After``, backoff);
- :mod:`.transport` — one HTTP client per navigator, a bounded body, cancellation and the call's deadline;
- :mod:`.stream` — a streamed answer (``local:``) put back together as one completion;
- :mod:`.answer` — reading what came back into ids, a rationale and usage, or a one-line failure;
- :mod:`.llama_server` and :mod:`.llama_child` — llama.cpp's server for ``local:`` models, in a child process
  that ends with its parent;
- :mod:`.errors` — :class:`~.errors.NavigatorHTTPError`, the one exception a caller sees.

The navigators themselves, which tie them together, are :mod:`explorer.navigators.openai_compat` and
:mod:`explorer.navigators.local_model`; :mod:`explorer.navigators.what_if` asks one decision again.
"""
