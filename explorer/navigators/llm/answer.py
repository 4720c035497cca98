"""Reading what the server answered: an HTTP error status, a chat completion, the model's ids.

Everything here takes text from the server, which is untrusted: messages quote it only after
the key is scrubbed from it, at most :data:`MAX_IDS` (or three per candidate) ids are kept, and
nothing grows faster than the (already capped) answer.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from core import NodeView

from ..answer_size import ids_kept
from .errors import NavigatorHTTPError, quote
from .schema import SCORE_MAX
from .settings import MAX_RETRIES_ENV, OPENAI_API_KEY_ENV, Settings
from .transport import Reply

_SERVER_MESSAGE_CHARS: Final = 160
# Reasoning models (deepseek-r1 on Ollama, ...) think aloud first; their notes may hold braces.
_THINKING = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_MAX_OBJECT_STARTS: Final = 200


@dataclass(frozen=True, slots=True)
class Answer:
    """What a chat completion said, read and scrubbed."""

    content: str
    """The model's message, as it wrote it (key scrubbed)."""
    selected: tuple[str, ...]
    rationale: str
    usage: dict[str, int] | None
    given: int
    """How many ids the model gave; more than ``len(selected)`` when some were dropped."""
    duplicates: int = 0
    """How many of the kept ids repeat an earlier one (as resolved: ``"plans"`` and ``"Plans"`` are one id); the
    walk keeps each id once, so these are dropped there. Ids past the kept ones are not looked at."""
    scores: dict[str, float] | None = None
    """With ``scores=on``, each offered id's score as given (0 to 100), divided by 100; ``None``: none asked for, or
    none given."""
    score_notes: tuple[tuple[str, str], ...] = ()
    """What the transcript says of the scores read: none given, ids not offered left out."""

    @property
    def dropped(self) -> int:
        """How many ids past the kept ones were dropped."""
        return self.given - len(self.selected)


class AnswerError(NavigatorHTTPError):
    """A 2xx answer that is no usable choice; ``content`` is what the model said, when there was a message."""

    def __init__(self, message: str, content: str | None = None) -> None:
        super().__init__(message)
        self.content = content


# -- an HTTP error status ----------------------------------------------------------------------


def server_message(settings: Settings, text: str) -> str:
    """What the server said about an error (``error.message`` of a JSON body, else the body's start)."""
    message: object = None
    body = _json(text)
    if isinstance(body, dict):
        error = body.get("error")
        message = error.get("message") if isinstance(error, dict) else error
        message = message if message is not None else body.get("message") or body.get("detail")
    shown = message if isinstance(message, str) else text
    if not shown.strip():
        return ""
    return f" (server said: {quote(settings.scrub(shown), _SERVER_MESSAGE_CHARS)})"


def keeps_secrets(status: int) -> bool:
    """Whether an answer with this status may quote the key (OpenAI's 401 quotes part of it back)."""
    return status in (401, 403)


def status_error(reply: Reply, settings: Settings, attempts: int) -> NavigatorHTTPError:
    """A one-line message for an HTTP error status, saying what to check."""
    status, url = reply.status, settings.shown_url
    head = f"HTTP {status} from {url}"
    if attempts > 1:
        head += f" after {attempts} attempts"
    if keeps_secrets(status):
        # The server's text is left out: it may quote part of the key.
        if settings.provider == "ollama":
            hint = f"the server wants credentials, which ollama: models never send; check {settings.base_url_env}"
        elif status == 401:
            hint = f"the API key was refused; check {OPENAI_API_KEY_ENV}"
        else:
            hint = f"the API key may not use model {settings.model!r}; check {OPENAI_API_KEY_ENV} and its permissions"
        return NavigatorHTTPError(f"{head}: {hint}", status=status)
    said = server_message(settings, reply.text)
    if status == 404:
        pulled = f" (pulled with `ollama pull {settings.model}`?)" if settings.provider == "ollama" else ""
        return NavigatorHTTPError(
            f"{head}: not found{said}; check the model name {settings.model!r}{pulled} and "
            f"{settings.base_url_env} (it should end in /v1)",
            status=status,
        )
    if status == 429:
        return NavigatorHTTPError(
            f"{head}: rate limited or out of quota{said}; wait, check your plan, or raise {MAX_RETRIES_ENV}",
            status=status,
        )
    if status >= 500:
        return NavigatorHTTPError(f"{head}: the server failed{said}; try again later", status=status)
    if 300 <= status < 400:
        where = f" to {quote(settings.scrub(reply.location))}" if reply.location else ""
        return NavigatorHTTPError(
            f"{head}: the server redirects{where}; set {settings.base_url_env} to the final address", status=status
        )
    return NavigatorHTTPError(
        f"{head}: the request was refused{said}; check the model name {settings.model!r}", status=status
    )


# -- a chat completion -------------------------------------------------------------------------


def read_completion(reply: Reply, candidates: Sequence[NodeView], settings: Settings) -> Answer:
    """Read a 2xx chat completion; :class:`AnswerError` quoting it when it is no usable choice."""
    not_completion = (
        f"the answer from {settings.shown_url} is not a chat completion; check that {settings.base_url_env} "
        f"is an OpenAI-compatible /v1 address; it starts {quote(settings.scrub(reply.text))}"
    )
    body = _json(reply.text)
    if not isinstance(body, dict):
        raise AnswerError(not_completion)
    choices = body.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    if not isinstance(message, dict):
        if body.get("error") is not None:
            raise AnswerError(
                f"HTTP {reply.status} from {settings.shown_url} but an error{server_message(settings, reply.text)}"
            )
        raise AnswerError(not_completion)
    raw_content = message.get("content")
    if not isinstance(raw_content, str) or not raw_content.strip():
        refusal = message.get("refusal")
        if isinstance(refusal, str) and refusal.strip():
            scrubbed = settings.scrub(refusal)
            raise AnswerError(f"model {settings.model!r} refused: {quote(scrubbed)}", scrubbed)
        raise AnswerError(f"model {settings.model!r} gave an empty answer", "")
    # Scrubbed before it is read: an id, a rationale or a quote in a message may echo the key.
    content = settings.scrub(raw_content)
    selected, given, rationale = _selection(content, candidates, settings)
    duplicates = len(selected) - len(set(selected))
    scores, notes = _scores(content, candidates, settings) if settings.options.scores else (None, ())
    return Answer(content, selected, rationale, _usage(body.get("usage")), given, duplicates, scores, notes)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: "[[[[..." nested past the parser's depth
        return None


def _usage(raw: object) -> dict[str, int] | None:
    """The token counts of a completion, when the server reported them."""
    if not isinstance(raw, dict):
        return None
    counts = {
        name: raw[name]
        for name in ("prompt_tokens", "completion_tokens", "total_tokens")
        if isinstance(raw.get(name), int) and not isinstance(raw.get(name), bool)
    }
    return counts or None


# -- the model's choice ------------------------------------------------------------------------


def _find_key(mapping: Mapping[Any, Any], name: str) -> Any:
    """The key of ``mapping`` that is ``name``, matched case-insensitively (``"Selected"``), or ``None``."""
    if name in mapping:
        return name
    return next((key for key in mapping if isinstance(key, str) and key.strip().lower() == name), None)


def _get(mapping: Mapping[Any, Any], name: str) -> Any:
    """``mapping[name]`` with the key matched case-insensitively; ``None`` when absent."""
    key = _find_key(mapping, name)
    return None if key is None else mapping[key]


def answer_object(text: str) -> dict[str, Any] | list[Any] | None:
    """The JSON answer inside a model's reply: fenced or not, with or without prose around it.

    Prefers the first object with a ``selected`` key; a reply that is only a JSON list is taken
    as the list of ids.
    """
    text = _THINKING.sub("", text).strip()
    fenced = [block.strip() for block in _FENCE.findall(text)]
    decoder = json.JSONDecoder()
    first_object: dict[str, Any] | None = None
    for chunk in [*fenced, text]:
        whole = _json(chunk)
        if isinstance(whole, list):
            return whole
        if isinstance(whole, dict) and _find_key(whole, "selected") is not None:
            return whole
        starts = [match.start() for match in itertools.islice(re.finditer(r"\{", chunk), _MAX_OBJECT_STARTS)]
        for start in starts:
            try:
                value, _ = decoder.raw_decode(chunk, start)
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict):
                if _find_key(value, "selected") is not None:
                    return value
                if first_object is None:
                    first_object = value
    return first_object


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


class _Resolver:
    """Maps what a model wrote for one candidate to its id, in constant time per item."""

    def __init__(self, candidates: Sequence[NodeView]) -> None:
        self._ids = [view.id for view in candidates]
        self._known = frozenset(self._ids)
        titles: dict[str, list[str]] = {}
        for view in candidates:
            titles.setdefault(_fold(view.title), []).append(view.id)
        self._titled = {title: ids[0] for title, ids in titles.items() if len(ids) == 1}

    def __call__(self, item: object) -> str:
        """One selected item as an id.

        An offered id (exactly, or once stripped) is kept; a number is a 1-based position in the
        numbered list; a title that exactly one candidate has (case-insensitively) is mapped to
        its id. Anything else is passed through unchanged, so the walk records it as a
        hallucination.
        """
        if isinstance(item, bool) or item is None:
            return json.dumps(item)
        if isinstance(item, int) or (isinstance(item, float) and item.is_integer()):
            position = int(item)
            return self._ids[position - 1] if 1 <= position <= len(self._ids) else str(item)
        if isinstance(item, dict):
            inner = _get(item, "id")
            return self(inner) if isinstance(inner, str | int) else json.dumps(item, ensure_ascii=False)
        if not isinstance(item, str):
            return json.dumps(item, ensure_ascii=False)
        if item in self._known:
            return item
        stripped = item.strip()
        if stripped in self._known:
            return stripped
        titled = self._titled.get(_fold(stripped))
        if titled is not None:
            return titled
        if stripped.isascii() and stripped.isdigit() and 1 <= int(stripped) <= len(self._ids):
            return self._ids[int(stripped) - 1]
        return item


def _selection(
    content: str, candidates: Sequence[NodeView], settings: Settings
) -> tuple[tuple[str, ...], int, str]:
    """The kept ids, how many were given and the rationale in the model's answer."""
    found = answer_object(content)
    if isinstance(found, list):
        raw: object = found
        rationale: object = ""
    elif isinstance(found, dict) and _find_key(found, "selected") is not None:
        raw = _get(found, "selected")
        rationale = _get(found, "rationale") or ""
    else:
        problem = "has no \"selected\" list" if found is not None else "is not the JSON asked for"
        raise AnswerError(f"the answer of model {settings.model!r} {problem}; it starts {quote(content)}", content)
    if raw is None:
        items: list[object] = []
    elif isinstance(raw, str | int | float | dict):
        items = [raw]  # one id given bare, not as a list
    elif isinstance(raw, list):
        items = raw
    else:
        raise AnswerError(
            f"the answer of model {settings.model!r} has a \"selected\" that is not a list; it starts {quote(content)}",
            content,
        )
    resolve = _Resolver(candidates)
    # Only the first ids are looked at: 100,000 invented ids cost no more than a hundred. Each is
    # scrubbed once parsed too: JSON escapes ("\u0073k-...") can spell the key past the first scrub.
    kept = tuple(settings.scrub(resolve(item)) for item in items[: ids_kept(len(candidates))])
    text = rationale if isinstance(rationale, str) else json.dumps(rationale, ensure_ascii=False)
    return kept, len(items), settings.scrub(text.strip())


def _scores(content: str, candidates: Sequence[NodeView],
            settings: Settings) -> tuple[dict[str, float] | None, tuple[tuple[str, str], ...]]:
    """The scores of an answer asked for them (``scores=on``), each id resolved as a selected one is and its score
    divided by :data:`~.schema.SCORE_MAX`, and the transcript's notes on them; an ``AnswerError`` for scores that are
    not a list of ids with a whole or decimal number from 0 to 100 (``{"id": score}`` is read too)."""
    found = answer_object(content)
    raw = _get(found, "scores") if isinstance(found, dict) else None
    if raw is None:
        return None, (("scores", "none given (asked with scores=on): the walk scores the chosen ids by their order"),)

    def malformed(what: str) -> AnswerError:
        return AnswerError(f"the answer of model {settings.model!r} has {what}; scores=on asks for "
                           f'[{{"id": "<id>", "score": <0 to 100>}}, ...]; it starts {quote(content)}', content)

    if isinstance(raw, dict):
        items: list[tuple[object, object]] = list(raw.items())
    elif isinstance(raw, list):
        items = []
        for item in raw:
            if not isinstance(item, dict) or _find_key(item, "id") is None or _find_key(item, "score") is None:
                raise malformed(f'a "scores" item that is no id with a score ({quote(_shown(item), 60)})')
            items.append((_get(item, "id"), _get(item, "score")))
    else:
        raise malformed('a "scores" that is not a list')
    resolve, offered = _Resolver(candidates), {view.id for view in candidates}
    scores: dict[str, float] = {}
    not_offered: list[str] = []
    for written, value in items[: ids_kept(len(candidates))]:
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= SCORE_MAX:
            raise malformed(f"a score that is no number from 0 to {SCORE_MAX} ({quote(_shown(value), 60)} for "
                            f"{quote(_shown(written), 60)})")
        node_id = settings.scrub(resolve(written))
        if node_id not in offered:
            not_offered.append(node_id)
        else:
            scores.setdefault(node_id, value / SCORE_MAX)
    notes: tuple[tuple[str, str], ...] = ()
    if not_offered:
        named = ", ".join(quote(i, 60) for i in not_offered[:5]) + (" …" if len(not_offered) > 5 else "")
        notes = (("scores", f"{len(not_offered):,} scored ids not offered, left out: {named}"),)
    return scores or None, notes


def _shown(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
