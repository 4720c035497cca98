"""The parts of the OpenAI-compatible navigator (``openai:MODEL``, ``ollama:MODEL``), one job per module.

- :mod:`.settings` — the model id and the environment read into one frozen :class:`~.settings.Settings`;
- :mod:`.prompt` — the messages sent (the system prompt and the offer written out);
- :mod:`.retry` — which answers are retried and how long to wait (``Retry-After``, backoff);
- :mod:`.transport` — one HTTP client per navigator, a bounded body, cancellation and the call's deadline;
- :mod:`.answer` — reading what came back into ids, a rationale and usage, or a one-line failure;
- :mod:`.errors` — :class:`~.errors.NavigatorHTTPError`, the one exception a caller sees.

The navigator itself, which ties them together, is :mod:`explorer.navigators.openai_compat`.
"""
