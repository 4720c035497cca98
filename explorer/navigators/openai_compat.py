"""A navigator that asks an OpenAI-compatible chat completions API (OpenAI, Ollama, ...) which branches to take.

Model ids are ``openai:MODEL`` (e.g. ``openai:gpt-4o-mini``) and ``ollama:MODEL`` (e.g.
``ollama:llama3.1:8b``). The endpoint, the key, the timeouts, the limits and the retries come
from the model id and the environment, read at every call (see :mod:`.llm.settings` for the
variables). The work is split by job in :mod:`explorer.navigators.llm`: the settings, the
prompt, the retry policy, the HTTP transport and the reading of the answer; this module ties
them into one :class:`core.TreeNavigator`.

Every failure is a :class:`NavigatorHTTPError` with a one-line message and a ``transcript``
(what was sent and what came back); a tripped cancellation token raises
:class:`core.RetrievalCancelled` instead. No message, transcript or id ever holds the API key,
even when the server echoes it back.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Iterable
from typing import Final

import httpx

from core import NavigatorChoice, NavigatorRequest, RetrievalCancelled, Transcript, TreeNavigator

from .errors import NavigatorConfigError
from .llm.answer import AnswerError, keeps_secrets, read_completion, status_error
from .llm.errors import NavigatorHTTPError
from .llm.prompt import Messages, messages, payload
from .llm.retry import RetryPolicy
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
    Settings,
    settings_for,
    split_model,
)
from .llm.transport import Deadline, HTTPClient, Reply

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
    "NavigatorHTTPError",
    "OpenAICompatibleNavigator",
]

_log = logging.getLogger(__name__)

# A transcript keeps the answer whole up to here: enough for any real answer, while a junk
# megabyte does not go into every trace line.
TRANSCRIPT_ANSWER_CHARS: Final = 20_000


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


class _Call:
    """One ``choose`` call's record: what was sent, and the transcripts built from it (always scrubbed)."""

    def __init__(self, settings: Settings, sent: Messages) -> None:
        self.settings = settings
        self.sent = sent
        self.earlier: list[int] = []

    def transcript(self, *entries: tuple[str, str]) -> Transcript:
        scrub = self.settings.scrub
        return tuple((label, scrub(text)) for label, text in (*self.sent, *entries))

    def failed(
        self, error: NavigatorHTTPError, attempts: int, *, answer: str | None = None, status: int | None = None
    ) -> NavigatorHTTPError:
        """``error`` again, scrubbed, carrying the transcript of this call."""
        entries: list[tuple[str, str]] = []
        if answer is not None:
            entries.append(("answer", _cut(answer)))
        outcome = str(status) if status is not None else "no answer"
        entries.append(("http", _http_line(outcome, attempts, self.earlier)))
        return NavigatorHTTPError(
            self.settings.scrub(str(error)), status=error.status, transcript=self.transcript(*entries)
        )

    def answered(self, reply: Reply) -> str:
        """The body of an error answer as the transcript keeps it."""
        if keeps_secrets(reply.status):
            return f"(not kept: an HTTP {reply.status} answer may quote part of the key)"
        return reply.text


class OpenAICompatibleNavigator(TreeNavigator):
    """Asks a chat completions endpoint (OpenAI, Ollama, or any OpenAI-compatible server) to choose.

    Supports ``openai:MODEL`` and ``ollama:MODEL``. Every :meth:`choose` reads the model id and
    the environment, sends the query, the current node's title and summary, the numbered
    candidates and the remaining visits (never content), and reads back
    ``{"selected": [...], "rationale": "..."}``. One HTTP client (one connection pool) serves
    every call of this navigator, from any thread; ``transport`` replaces the network (an
    ``httpx.MockTransport`` in tests). 429 and 5xx answers are retried with backoff within the
    call's deadline; other failures raise :class:`NavigatorHTTPError`. A tripped
    ``request.cancellation`` raises :class:`core.RetrievalCancelled`, abandoning a request in
    flight within 0.2 s.
    """

    def __init__(self, *, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self._http = HTTPClient(transport)
        # The client's thread ends with the navigator, even if nobody calls close().
        weakref.finalize(self, self._http.close)

    def close(self) -> None:
        """Close the connections and end the client's thread; a later call opens them again."""
        self._http.close()

    def __enter__(self) -> OpenAICompatibleNavigator:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def supports(self, model: str) -> bool:
        """Whether ``model`` is ``openai:MODEL`` or ``ollama:MODEL`` with a non-blank MODEL."""
        return split_model(model) is not None

    def check_model(self, model: str) -> None:
        """Check the environment for ``model`` now (key, base URL, timeouts), before any walk.

        Called by :func:`explorer.navigators.resolve_navigator`; raises its
        :class:`NavigatorConfigError` with the same message :meth:`choose` would raise. No request
        is made: a server that is down is only found out when asked.
        """
        try:
            settings_for(model)
        except NavigatorHTTPError as exc:
            raise NavigatorConfigError(str(exc)) from None

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        """Ask the model which of ``request.candidates`` to descend, in order of preference.

        Raises :class:`NavigatorHTTPError` (configuration, connection, HTTP status, deadline, an
        answer too large or unreadable) and :class:`core.RetrievalCancelled`.
        """
        token = request.cancellation
        token.raise_if_cancelled()
        settings = settings_for(request.model)
        if not request.candidates:
            return NavigatorChoice(())
        call = _Call(settings, messages(request))
        body = payload(settings.model, call.sent)
        policy = RetryPolicy(settings.max_retries, settings.backoff)
        deadline = Deadline(settings.call_deadline)
        attempt = 0
        while True:
            attempt += 1
            token.raise_if_cancelled()
            _log.debug("POST %s model=%r attempt %d of %d", settings.shown_url, settings.model, attempt,
                       policy.attempts)
            try:
                reply = self._http.post(settings, body, token=token, deadline=deadline)
            except NavigatorHTTPError as exc:
                raise call.failed(exc, attempt) from None
            token.raise_if_cancelled()
            if 200 <= reply.status < 300:
                return self._choice(reply, request, call, attempt)
            if not policy.should_retry(reply.status, attempt):
                error = status_error(reply, settings, attempt)
                raise call.failed(error, attempt, answer=call.answered(reply), status=reply.status)
            delay = policy.delay(attempt, reply.retry_after)
            if delay >= deadline.left():
                error = status_error(reply, settings, attempt)
                error = NavigatorHTTPError(
                    f"{error}; no retry: waiting {delay:g} s would pass the call's deadline ({CALL_DEADLINE_ENV})",
                    status=reply.status,
                )
                raise call.failed(error, attempt, answer=call.answered(reply), status=reply.status)
            _log.info("HTTP %d from %s; retry %d of %d in %.2f s",
                      reply.status, settings.shown_url, attempt, settings.max_retries, delay)
            call.earlier.append(reply.status)
            if token.wait(delay):
                raise RetrievalCancelled()

    @staticmethod
    def _choice(reply: Reply, request: NavigatorRequest, call: _Call, attempts: int) -> NavigatorChoice:
        settings = call.settings
        http = ("http", _http_line(str(reply.status), attempts, call.earlier))
        try:
            answer = read_completion(reply, request.candidates, settings)
        except AnswerError as exc:
            said = exc.content if exc.content is not None else reply.text
            raise call.failed(exc, attempts, answer=said, status=reply.status) from None
        rationale = answer.rationale
        notes: Iterable[tuple[str, str]] = ()
        if answer.dropped:
            note = (
                f"{answer.given:,} ids given: only the first {len(answer.selected):,} kept, "
                f"{answer.dropped:,} dropped"
            )
            rationale = f"{rationale} [{note}]" if rationale else f"[{note}]"
            notes = (("ids", note),)
        _log.debug("model %r selected %r (usage %r)", settings.model, answer.selected, answer.usage)
        transcript = call.transcript(("answer", _cut(answer.content)), *notes, http)
        return NavigatorChoice(answer.selected, rationale, answer.usage, transcript)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
