"""A navigator that asks an OpenAI-compatible chat completions API (OpenAI, Ollama, vLLM, ...) which branches
to take.

Model ids are ``openai:MODEL`` (e.g. ``openai:gpt-4o-mini``), ``ollama:MODEL`` (e.g.
``ollama:llama3.1:8b``) and ``vllm:MODEL``, each optionally followed by options after an ``@``
(``openai:gpt-4o-mini@temperature=0.7,seed=3``, see :mod:`.llm.options`). The endpoint, the key,
the timeouts, the limits and the retries come from the model id and the environment, read at
every call (see :mod:`.llm.settings` for the variables). The work is split by job in
:mod:`explorer.navigators.llm`: the settings, the options, the prompt, the structured-output
schema, the response cache, the retry policy, the HTTP transport and the reading of the answer;
this module ties them into one :class:`core.TreeNavigator`. ``local:`` models
(:mod:`.local_model`) are this navigator talking to a llama.cpp server it starts.

Every decision's transcript holds the messages sent, then ``("provider", ...)`` (what the
navigator really talks to: ``openai``, ``ollama``, ``vllm`` or ``llama.cpp``), ``("parameters",
...)`` (one line of JSON: the sampling settings and ``max_tokens`` actually sent, and
``structured_output`` true or false), ``("schema", ...)`` (the structured-output fields sent, one
line of JSON) or ``("structured output", ...)`` (why none was sent, or that the server refused
it and the request was sent again without it), then the model's raw ``answer`` and the ``http``
outcome. An answer from the response cache says so with ``("answered", "cached: ...")``
(:mod:`.answered`).

Every failure is a :class:`NavigatorHTTPError` with a one-line message and a ``transcript``
(what was sent and what came back); a tripped cancellation token raises
:class:`core.RetrievalCancelled` instead. No message, transcript or id ever holds the API key,
even when the server echoes it back.
"""

from __future__ import annotations

import copy
import json
import logging
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Self

import httpx

from core import CancellationToken, NavigatorChoice, NavigatorRequest, RetrievalCancelled, Transcript, TreeNavigator

from ..http import Deadline, Stop, with_retries
from .answered import Answered, answered_pair, duplicates_pair
from .errors import NavigatorConfigError
from .folders import UNCACHED, Folders
from .llm.answer import AnswerError, keeps_secrets, read_completion, status_error
from .llm.cache import CachedAnswer, ResponseCache
from .llm.errors import NavigatorHTTPError, quote
from .llm.options import ModelOptions, OptionError, StructuredOutput, split_options
from .llm.prompt import Messages, PromptFileError, messages, payload, read_prompts
from .llm.retry import retry_policy
from .llm.schema import RATIONALE_MAX_CHARS, choice_schema, compact_grammar, default_max_tokens, request_fields
from .llm.settings import (
    CALL_DEADLINE_ENV,
    CONNECT_TIMEOUT_ENV,
    MAX_ANSWER_BYTES_ENV,
    MAX_RETRIES_ENV,
    OLLAMA_BASE_URL_ENV,
    OLLAMA_DEFAULT_BASE_URL,
    OPENAI_API_KEY_ENV,
    OPENAI_BASE_URL_ENV,
    OPENAI_DEFAULT_BASE_URL,
    READ_TIMEOUT_ENV,
    RETRY_BACKOFF_ENV,
    VLLM_API_KEY_ENV,
    VLLM_BASE_URL_ENV,
    Settings,
    settings_for,
    split_model,
)
from .llm.stream import assemble
from .llm.transport import HTTPClient, Reply

if TYPE_CHECKING:
    from .llm.llama_server import StatusListeners

__all__ = [
    "CALL_DEADLINE_ENV",
    "CONNECT_TIMEOUT_ENV",
    "MAX_ANSWER_BYTES_ENV",
    "MAX_RETRIES_ENV",
    "OLLAMA_BASE_URL_ENV",
    "OLLAMA_DEFAULT_BASE_URL",
    "OPENAI_API_KEY_ENV",
    "OPENAI_BASE_URL_ENV",
    "OPENAI_DEFAULT_BASE_URL",
    "READ_TIMEOUT_ENV",
    "RETRY_BACKOFF_ENV",
    "VLLM_API_KEY_ENV",
    "VLLM_BASE_URL_ENV",
    "NavigatorHTTPError",
    "OpenAICompatibleNavigator",
]

_log = logging.getLogger(__name__)

# A transcript keeps the answer whole up to here: enough for any real answer, while a junk
# megabyte does not go into every trace line.
TRANSCRIPT_ANSWER_CHARS: Final = 20_000
# A schema refused with one of these is asked for no more: the request goes again without it.
REFUSAL_STATUSES: Final = frozenset({400, 422})


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


def _http_line(outcome: str, attempts: int, earlier: list[int]) -> str:
    """``"200 after 2 attempts (earlier: 503)"``: the transcript's account of the HTTP side."""
    line = f"{outcome} after {_plural(attempts, 'attempt')}"
    return f"{line} (earlier: {', '.join(map(str, earlier))})" if earlier else line


def _cut(text: str) -> str:
    if len(text) <= TRANSCRIPT_ANSWER_CHARS:
        return text
    rest = len(text) - TRANSCRIPT_ANSWER_CHARS
    return f"{text[:TRANSCRIPT_ANSWER_CHARS]}\n… ({rest:,} more characters not kept in the transcript)"


def _one_line_json(document: object) -> str:
    return json.dumps(document, ensure_ascii=False, separators=(", ", ": "))


@dataclass(slots=True)
class _Call:
    """One ``choose`` call's record: what was sent, and the transcripts built from it (always scrubbed)."""

    settings: Settings
    sent: Messages
    fields: dict[str, Any]
    """The body's fields after the messages: sampling, ``max_tokens``, and structured output when asked."""
    structured: bool
    notes: list[tuple[str, str]] = field(default_factory=list)
    """Said about structured output: why none is asked for, or that the server refused it."""
    earlier: list[int] = field(default_factory=list)
    cached: CachedAnswer | None = None

    @property
    def body(self) -> dict[str, Any]:
        return payload(self.settings.model, self.sent, self.fields)

    def parameters(self) -> str:
        """The invocation parameters actually sent, as one line of JSON."""
        keys = ("temperature", "seed", "top_p", "max_tokens")
        sent: dict[str, Any] = {key: self.fields[key] for key in keys if key in self.fields}
        return _one_line_json({**sent, "structured_output": self.structured})

    def drop_schema(self, note: tuple[str, str]) -> None:
        """Ask again without structured output, saying why."""
        self.fields.pop("response_format", None)
        self.fields.pop("grammar", None)
        self.structured = False
        self.notes.append(note)

    def transcript(self, *entries: tuple[str, str]) -> Transcript:
        scrub = self.settings.scrub
        described: list[tuple[str, str]] = [("provider", self.settings.provider), ("parameters", self.parameters())]
        if self.structured and "grammar" in self.fields:
            described.append(("grammar", self.fields["grammar"]))
        elif self.structured:
            described.append(("schema", _one_line_json({"response_format": self.fields["response_format"]})))
        described += self.notes
        if self.cached is not None:
            hit = self.cached
            said = f"the answer to an identical request, saved {hit.saved_text} (key {hit.key[:16]})"
            entries = (*entries, answered_pair(Answered.CACHED, said))
        return tuple((label, scrub(text)) for label, text in (*self.sent, *described, *entries))

    def http_line(self, outcome: str, attempts: int) -> str:
        if self.cached is not None:
            return f"none: {self.cached.status} from the response cache"
        return _http_line(outcome, attempts, self.earlier)

    def failed(
        self, error: NavigatorHTTPError, attempts: int, *, answer: str | None = None, status: int | None = None
    ) -> NavigatorHTTPError:
        """``error`` again, scrubbed, carrying the transcript of this call."""
        entries: list[tuple[str, str]] = []
        if answer is not None:
            entries.append(("answer", _cut(answer)))
        outcome = str(status) if status is not None else "no answer"
        entries.append(("http", self.http_line(outcome, attempts)))
        return NavigatorHTTPError(
            self.settings.scrub(str(error)), status=error.status, transcript=self.transcript(*entries)
        )

    def answered(self, reply: Reply) -> str:
        """The body of an error answer as the transcript keeps it."""
        if keeps_secrets(reply.status):
            return f"(not kept: an HTTP {reply.status} answer may quote part of the key)"
        return reply.text


def _rationale_chars(options: ModelOptions) -> int:
    """How long a rationale the schema allows (``rationale=`` in the model id, else the default)."""
    return RATIONALE_MAX_CHARS if options.rationale is None else options.rationale


def _sampling(settings: Settings, request: NavigatorRequest | int) -> dict[str, Any]:
    """The sampling fields and ``max_tokens`` of one request (temperature 0 unless asked otherwise; ``request``: an
    offer, whose size gives the default ``max_tokens``, or that default itself)."""
    options = settings.options
    fields: dict[str, Any] = {"temperature": options.temperature if options.temperature is not None else 0}
    if options.seed is not None:
        fields["seed"] = options.seed
    if options.top_p is not None:
        fields["top_p"] = options.top_p
    fields["max_tokens"] = (options.max_tokens if options.max_tokens is not None
                            else request if isinstance(request, int)
                            else default_max_tokens(request.candidates, request.remaining_visits,
                                                    _rationale_chars(options), options.scores))
    if settings.streams:
        fields["stream"] = True
        fields["stream_options"] = {"include_usage": True}
    return fields


class OpenAICompatibleNavigator(TreeNavigator):
    """Asks a chat completions endpoint (OpenAI, Ollama, vLLM, or any OpenAI-compatible server) to choose.

    Supports ``openai:MODEL``, ``ollama:MODEL`` and ``vllm:MODEL``, each with options after an ``@``. Every
    :meth:`choose` reads the model id and the environment, sends the query, the current node's title and
    summary, the numbered candidates and the remaining visits (never content), and reads back
    ``{"selected": [...], "rationale": "..."}``, asking for it as structured output (a JSON schema whose ids
    are the ones offered) unless ``schema=off``. An identical earlier request's answer is read from the
    response cache instead of asking. One HTTP client (one connection pool) serves every call of this
    navigator, from any thread; ``transport`` replaces the network (an ``httpx.MockTransport`` in tests). 429
    and 5xx answers are retried with backoff within the call's deadline; other failures raise
    :class:`NavigatorHTTPError`. A tripped ``request.cancellation`` raises :class:`core.RetrievalCancelled`,
    abandoning a request in flight within 0.2 s.
    """

    costly_calls = True
    """Each answer is a model call: a budget sweep asks for the largest budget's and re-walks the smaller ones from
    them (:mod:`explorer.walks.evaluation.sweep`)."""

    def __init__(self, *, transport: httpx.AsyncBaseTransport | None = None, folders: Folders | None = None) -> None:
        self._http = HTTPClient(transport)
        self._refused_lock = threading.Lock()
        self._refused: dict[tuple[str, str], str] = {}
        self.folders = folders
        """Where a program wired this navigator to cache its answers (``Wiring.wire``, :meth:`kept_in`); ``None``:
        no program did, and each call caches where the user's environment says (:func:`.llm.settings.cache_dir`)."""
        self._made_from: OpenAICompatibleNavigator | None = None
        # The client's thread ends with the navigator, even if nobody calls close().
        weakref.finalize(self, self._http.close)

    def wired_with(self, desk: object, hearing: StatusListeners | None,
                   folders: Folders | None) -> TreeNavigator | None:
        """This navigator as a program wires it (``Wiring.wire``): caching in ``folders.cache`` (``None``: it needs
        no wiring, it already does or no folders are given)."""
        return self.kept_in(folders) if folders is not None and folders != self.folders else None

    def kept_in(self, folders: Folders) -> Self:
        """This navigator, caching in ``folders.cache`` (itself when it already does): a copy that shares its HTTP
        client, as :meth:`copied` says."""
        if folders == self.folders:
            return self
        kept = self.copied()
        kept.folders = folders
        return kept

    def copied(self) -> Self:
        """A copy to wire with something else (a cache folder, a local model's listeners) that shares this one's
        HTTP client (one connection pool, one request thread, closed with either) and keeps this one alive while
        it is used, so that closing the navigator that was resolved closes what the copy asks with too."""
        made = copy.copy(self)
        made._made_from = self
        return made

    def close(self) -> None:
        """Close the connections and end the client's thread; a later call opens them again."""
        self._http.close()

    def __enter__(self) -> OpenAICompatibleNavigator:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def supports(self, model: str) -> bool:
        """Whether ``model`` is ``openai:MODEL``, ``ollama:MODEL`` or ``vllm:MODEL`` with a non-blank MODEL."""
        return split_model(model) is not None

    def files_read(self, model: str) -> tuple[Path, ...]:
        """The prompt files ``model``'s options name (``@system=FILE``, ``@prompt=FILE``): no output may be
        written over them."""
        try:
            options = split_options(model).options
        except OptionError:
            return ()
        return tuple(path for path in (options.system, options.prompt) if path is not None)

    def reads_file(self, model: str) -> bool:
        """Whether ``model`` names a file on this machine: a prompt file in its options (``@system=FILE``)."""
        try:
            return split_options(model).options.reads_file
        except OptionError:
            return "system=" in model or "prompt=" in model

    def check_model(self, model: str) -> None:
        """Check the environment and the options for ``model`` now (key, base URL, timeouts, prompt files),
        before any walk.

        Called by :func:`explorer.navigators.resolve_navigator`; raises its
        :class:`NavigatorConfigError` with the same message :meth:`choose` would raise. No request
        is made: a server that is down is only found out when asked.
        """
        try:
            settings = self.check_settings(model)
            read_prompts(settings.options.system, settings.options.prompt)
        except (NavigatorHTTPError, PromptFileError) as exc:
            raise NavigatorConfigError(str(exc)) from None

    def check_settings(self, model: str) -> Settings:
        """The settings of ``model`` as :meth:`check_model` checks them (no server is started). Where answers are
        cached is no setting of the model: it is not read here (a navigator is checked before a program wires its
        own cache folder, and ``--cache DIR`` must win over the user's variable); an unwired navigator reads it at
        its first call."""
        return settings_for(model, self.folders if self.folders is not None else UNCACHED)

    def settings(self, model: str) -> Settings:
        """The settings of one call of ``model``, read now (no server is started, no request made)."""
        return settings_for(model, self.folders)

    def connect(self, settings: Settings, token: CancellationToken) -> Settings:
        """``settings`` ready to send: a subclass whose server is started on demand starts it here (waiting,
        looking at ``token``), once the response cache had no answer. Here: as they are."""
        return settings

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        """Ask the model which of ``request.candidates`` to descend, in order of preference.

        Raises :class:`NavigatorHTTPError` (configuration, connection, HTTP status, deadline, an
        answer too large or unreadable) and :class:`core.RetrievalCancelled`.
        """
        request.cancellation.raise_if_cancelled()
        if not request.candidates:
            self.settings(request.model)  # still a configuration error, said as such
            return NavigatorChoice(())
        return self.ask(request)

    def prompt(self, request: NavigatorRequest) -> Messages:
        """The messages :meth:`choose` would send for ``request`` (the model id's prompt files read now)."""
        settings = self.settings(request.model)
        try:
            prompts = read_prompts(settings.options.system, settings.options.prompt)
        except PromptFileError as exc:
            raise NavigatorHTTPError(str(exc)) from None
        return messages(request, prompts, settings.options.scores)

    def ask(
        self, request: NavigatorRequest, sent: Messages | None = None, *, use_cache: bool = True
    ) -> NavigatorChoice:
        """What :meth:`choose` does, with these messages instead of the prompt's (``sent``; ``None``: the
        prompt's), and without the response cache, read or written, when ``use_cache`` is false (a prompt
        what-if asks once, live: :mod:`explorer.navigators.what_if`)."""
        token = request.cancellation
        token.raise_if_cancelled()
        call = self._call(request, sent)
        folder = call.settings.cache_dir
        cache = ResponseCache(folder) if use_cache and folder is not None and call.settings.options.cacheable else None
        if not use_cache:
            call.notes.append(("cache", "not used: asked once, live (a what-if)"))
        cached = self._from_cache(cache, call)
        if cached is not None:
            return self._choice(cached, request, call, 0)
        call.settings = self.connect(call.settings, token)
        reply, attempts = self._post(call, token)
        if self._refuses_schema(reply.status, call):
            refused = f"HTTP {reply.status}{self._said(reply)}"
            self._remember_refusal(call.settings, refused)
            if cache is not None:
                cache.put(self._where(call.settings), call.body, reply.status, reply.text)
            call.drop_schema(("structured output", f"refused by the server ({refused}); asked again without it"))
            call.earlier.append(reply.status)
            cached = self._from_cache(cache, call)
            if cached is not None:
                return self._choice(cached, request, call, attempts)
            reply, more = self._post(call, token, attempts)
            attempts = more
        if not 200 <= reply.status < 300:
            error = status_error(reply, call.settings, attempts)
            if reply.status in REFUSAL_STATUSES and call.structured:
                error = NavigatorHTTPError(f"{error}; if the server refuses structured output, add @schema=off "
                                           "to the model id (or leave it at auto)", status=error.status)
            raise call.failed(error, attempts, answer=call.answered(reply), status=reply.status)
        if cache is not None and _is_completion(reply):
            cache.put(self._where(call.settings), call.body, reply.status, reply.text)
        return self._choice(reply, request, call, attempts)

    def complete(self, model: str, sent: Messages, max_tokens: int,
                 token: CancellationToken | None = None) -> tuple[str, bool]:
        """One free-text completion of ``sent`` by ``model`` (no structured output), with a choice's settings,
        retries and response cache: the answer's text, and whether the cache gave it. A
        :class:`NavigatorHTTPError` in one line when it cannot be had (or the answer holds no text)."""
        token = token or CancellationToken()
        settings = self.settings(model)
        call = _Call(settings, sent, _sampling(settings, max_tokens), structured=False)
        folder = call.settings.cache_dir
        cache = ResponseCache(folder) if folder is not None and call.settings.options.cacheable else None
        cached = self._from_cache(cache, call)
        if cached is not None:
            reply, attempts = cached, 0
        else:
            call.settings = self.connect(call.settings, token)
            reply, attempts = self._post(call, token)
        if not 200 <= reply.status < 300:
            raise call.failed(status_error(reply, call.settings, attempts), attempts, status=reply.status)
        text = _message_text(reply)
        if not text:
            raise call.failed(NavigatorHTTPError(f"{call.settings.provider} answered no text"), attempts,
                              answer=call.answered(reply), status=reply.status)
        if cache is not None and cached is None:
            cache.put(self._where(call.settings), call.body, reply.status, reply.text)
        return text, cached is not None

    # -- the parts of a call ------------------------------------------------------------------------------

    def _call(self, request: NavigatorRequest, sent: Messages | None) -> _Call:
        settings = self.settings(request.model)
        fields = _sampling(settings, request)
        call = _Call(settings, sent if sent is not None else self.prompt(request), fields, structured=False)
        mode = settings.options.schema
        refused = self._refusal(settings) if mode is StructuredOutput.AUTO else None
        if mode is StructuredOutput.OFF:
            call.notes.append(("structured output", "off (schema=off)"))
        elif refused is not None:
            call.notes.append(("structured output", f"off: the server refused it earlier ({refused})"))
        else:
            schema = choice_schema(request.candidates, request.remaining_visits, _rationale_chars(settings.options),
                                   settings.options.max_items, settings.options.scores)
            if settings.options.grammar == "compact":
                fields["grammar"] = compact_grammar(schema)
            else:
                fields.update(request_fields(settings.provider, schema))
            call.structured = True
        return call

    @staticmethod
    def _where(settings: Settings) -> str:
        """What the cache key names as the server: its base URL (or a local model's file); with ``scores=on``, said
        too, so that an answer read for its scores is never one kept without them (whatever the prompt and the
        schema sent)."""
        where = settings.cache_identity or settings.base_url
        return f"{where} scores=on" if settings.options.scores else where

    def _from_cache(self, cache: ResponseCache | None, call: _Call) -> Reply | None:
        """The cached answer to this call's request as a reply (a refusal of the schema is acted on here)."""
        if cache is None:
            return None
        hit = cache.get(self._where(call.settings), call.body)
        if hit is None:
            return None
        if self._refuses_schema(hit.status, call):
            call.drop_schema(("structured output", f"refused by the server (HTTP {hit.status}, saved "
                                                   f"{hit.saved_text} in the response cache); asked without it"))
            return self._from_cache(cache, call)
        if not 200 <= hit.status < 300:
            return None
        call.cached = hit
        return Reply(hit.status, hit.text, None, None)

    @staticmethod
    def _refuses_schema(status: int, call: _Call) -> bool:
        """Whether an answer with ``status`` is the server refusing the schema that ``auto`` may drop."""
        return status in REFUSAL_STATUSES and call.structured and call.settings.options.schema is StructuredOutput.AUTO

    def _refusal(self, settings: Settings) -> str | None:
        with self._refused_lock:
            return self._refused.get((self._where(settings), settings.model))

    def _remember_refusal(self, settings: Settings, refused: str) -> None:
        with self._refused_lock:
            self._refused[(self._where(settings), settings.model)] = refused

    @staticmethod
    def _said(reply: Reply) -> str:
        text = reply.text.strip()
        if not text or keeps_secrets(reply.status):
            return ""
        try:
            body = json.loads(text)
        except ValueError:
            body = None
        if isinstance(body, dict):
            error = body.get("error")
            message = error.get("message") if isinstance(error, dict) else error
            if isinstance(message, str) and message.strip():
                text = message
        return f": {quote(text)}"

    def _post(self, call: _Call, token: CancellationToken, attempts_before: int = 0) -> tuple[Reply, int]:
        """Send the call's request (retrying 429 and 5xx); the last reply and the attempts made in all."""
        settings = call.settings
        body = call.body
        deadline = Deadline(settings.call_deadline)

        def attempt(tries: int) -> Reply:
            number = attempts_before + tries
            token.raise_if_cancelled()
            _log.debug("POST %s model=%r attempt %d", settings.shown_url, settings.model, number)
            try:
                reply = self._http.post(settings, body, token=token, deadline=deadline)
            except NavigatorHTTPError as exc:
                raise call.failed(exc, number) from None
            token.raise_if_cancelled()
            if 200 <= reply.status < 300 and settings.streams:
                assembled = assemble(reply.text)
                reply = reply if assembled is None else Reply(reply.status, assembled, reply.retry_after,
                                                              reply.location)
            return reply

        def before_retry(reply: Reply, tries: int, delay: float) -> None:
            _log.info("HTTP %d from %s; retry %d of %d in %.2f s",
                      reply.status, settings.shown_url, tries, settings.max_retries, delay)
            call.earlier.append(reply.status)
            if token.wait(delay):
                raise RetrievalCancelled()

        done = with_retries(attempt, retry_policy(settings.max_retries, settings.backoff), deadline,
                            before_retry=before_retry)
        reply, attempts = done.answer, attempts_before + done.attempts
        if done.stop is Stop.DEADLINE:
            error = status_error(reply, settings, attempts)
            error = NavigatorHTTPError(
                f"{error}; no retry: waiting {done.wait:g} s would pass the call's deadline ({CALL_DEADLINE_ENV})",
                status=reply.status,
            )
            raise call.failed(error, attempts, answer=call.answered(reply), status=reply.status)
        return reply, attempts

    @staticmethod
    def _choice(reply: Reply, request: NavigatorRequest, call: _Call, attempts: int) -> NavigatorChoice:
        settings = call.settings
        http = ("http", call.http_line(str(reply.status), attempts))
        try:
            answer = read_completion(reply, request.candidates, settings)
        except AnswerError as exc:
            said = exc.content if exc.content is not None else reply.text
            raise call.failed(exc, attempts, answer=said, status=reply.status) from None
        rationale = answer.rationale
        notes: list[tuple[str, str]] = []
        if answer.dropped:
            note = (
                f"{answer.given:,} ids given: only the first {len(answer.selected):,} kept, "
                f"{answer.dropped:,} dropped"
            )
            rationale = f"{rationale} [{note}]" if rationale else f"[{note}]"
            notes.append(("ids", note))
        if answer.duplicates:  # the walk keeps each id once: counted here, where the answer is read
            notes.append(duplicates_pair(answer.duplicates))
        notes += answer.score_notes
        _log.debug("model %r selected %r (usage %r)", settings.model, answer.selected, answer.usage)
        transcript = call.transcript(("answer", _cut(answer.content)), *notes, http)
        return NavigatorChoice(answer.selected, rationale, answer.usage, transcript, scores=answer.scores)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _message_text(reply: Reply) -> str:
    """The first choice's message text of a chat completion (a stream's, assembled), stripped; ``""``: none."""
    try:
        body = json.loads(reply.text)
    except ValueError:
        return ""
    choices = body.get("choices") if isinstance(body, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    return content.strip() if isinstance(content, str) else ""


def _is_completion(reply: Reply) -> bool:
    """Whether a 2xx reply is a chat completion with a message (what is worth keeping in the cache)."""
    try:
        body = json.loads(reply.text)
    except ValueError:
        return False
    choices = body.get("choices") if isinstance(body, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    return isinstance(first, dict) and isinstance(first.get("message"), dict)
