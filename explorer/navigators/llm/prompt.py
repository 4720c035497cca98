"""What the LLM navigator sends: a system prompt and the offer written out as the user message.

The model sees the query, where the walk is, the numbered candidates (id, title, summary; never
a document's content) and the visits left. :func:`messages` is also what the transcript shows,
exactly as sent.

A team can try other words (``--system-prompt FILE`` and ``--prompt-template FILE`` on ``walk`` and
``eval``, or ``@system=FILE,prompt=FILE`` in the model id): the system prompt file is sent as it is; the
template is the user message with placeholders, each written ``{{name}}`` (single braces, as in a JSON
example, are left alone):

``{{query}}``
    the question walked for;
``{{position}}``
    where the walk is: ``You are at the top of the corpus: ...`` or ``You are in: TITLE`` and ``Its summary:
    SUMMARY`` on two lines;
``{{current_title}}``, ``{{current_summary}}``
    the current node's title and summary (empty at the top);
``{{candidates}}``
    the numbered candidates, three lines each (``1. id: ...``, ``   title: ...``, ``   summary: ...``);
``{{candidates_compact}}``
    the same candidates one line each, id first (``- id: title. summary``), for a small model's short prompt;
``{{ids}}``
    the offered ids, comma-separated;
``{{remaining_visits}}``, ``{{max_selected}}``
    the visits left, and how many ids an answer may hold.

An unknown placeholder is refused when the navigator is resolved, naming the file and line.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from core import NavigatorRequest

from ...corpora.yaml_source import did_you_mean
from ...reading import NotARegularFile, TooLarge, problem, read_file
from .errors import one_line
from .schema import max_selected

SYSTEM_PROMPT: Final = (
    "You guide a search down a hierarchy of documents, like a table of contents. At each step you see "
    "where you are and the sections directly below, each with an id, a title and a summary (never the "
    "documents' text), and you pick the sections most likely to hold what answers the query. "
    'Reply with one JSON object and nothing else: {"selected": [ids, most promising first], '
    '"rationale": "one or two sentences on why"}. Use only ids from the list you are given, copied '
    'exactly. An empty "selected" list means stop here: no section below is worth entering.'
)

Messages = tuple[tuple[str, str], ...]
"""``(role, content)`` pairs in the order sent; also the start of the call's transcript."""

PLACEHOLDERS: Final = ("query", "position", "current_title", "current_summary", "candidates",
                        "candidates_compact", "ids",
                       "remaining_visits", "max_selected")
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
MAX_PROMPT_FILE_BYTES: Final = 1_000_000


class PromptFileError(ValueError):
    """A prompt file that cannot be used: missing, unreadable, not text, or with an unknown placeholder."""


@dataclass(frozen=True, slots=True)
class Prompts:
    """The words a call uses: the system prompt, and the user message's template (``None``: the built-in one)."""

    system: str = SYSTEM_PROMPT
    template: str | None = None


DEFAULT_PROMPTS: Final = Prompts()


def _position(request: NavigatorRequest) -> str:
    if request.current is None:
        return "You are at the top of the corpus: the candidates are its top-level sections."
    # One line each, so a multi-line summary cannot break the numbered layout.
    return (f"You are in: {one_line(request.current.title)}\n"
            f"Its summary: {one_line(request.current.summary) or '(none)'}")


def _candidates(request: NavigatorRequest) -> str:
    lines: list[str] = []
    for number, view in enumerate(request.candidates, start=1):
        lines.append(f"{number}. id: {view.id}")
        lines.append(f"   title: {one_line(view.title)}")
        lines.append(f"   summary: {one_line(view.summary) or '(none)'}")
    return "\n".join(lines)


def _candidates_compact(request: NavigatorRequest) -> str:
    lines: list[str] = []
    for view in request.candidates:
        summary = one_line(view.summary)
        lines.append(f"- {view.id}: {one_line(view.title)}" + (f". {summary}" if summary else ""))
    return "\n".join(lines)


SCORES_ASKED: Final = (
    'With it, "scores": [{"id": "<id>", "score": <0 to 100>}, ...], one for every id listed: how likely the '
    "section holds what answers the query, 0 for surely not, 100 for surely."
)
"""What the built-in user message adds when the model id says ``scores=on`` (a template of one's own says it in its
own words; the schema asks for the scores either way)."""


def user_prompt(request: NavigatorRequest, scores: bool = False) -> str:
    """The user message: the query, where the walk is, the numbered candidates and the remaining visits (and, with
    ``scores``, the scores asked for: :data:`SCORES_ASKED`)."""
    lines = [
        f"Query: {request.query}",
        "",
        _position(request),
        "",
        "Candidates (the sections directly below):",
        _candidates(request),
        "",
        f"Remaining visits: {request.remaining_visits}. Entering a section costs one visit, and so does every "
        "section below it that you enter later, so select only the sections worth it.",
        "",
        'Answer with JSON only: {"selected": ["<id>", ...], "rationale": "..."}. Use only the ids listed '
        "above, most promising first; an empty list stops here.",
    ]
    if scores:
        lines.append(SCORES_ASKED)
    return "\n".join(lines)


def _values(request: NavigatorRequest) -> Mapping[str, Callable[[], str]]:
    current = request.current
    return {
        "query": lambda: request.query,
        "position": lambda: _position(request),
        "current_title": lambda: one_line(current.title) if current else "",
        "current_summary": lambda: one_line(current.summary) if current else "",
        "candidates": lambda: _candidates(request),
        "candidates_compact": lambda: _candidates_compact(request),
        "ids": lambda: ", ".join(view.id for view in request.candidates),
        "remaining_visits": lambda: str(request.remaining_visits),
        "max_selected": lambda: str(max_selected(request.candidates, request.remaining_visits)),
    }


def placeholder_values(request: NavigatorRequest) -> dict[str, str]:
    """What each placeholder stands for at ``request``'s offer (``{"query": ..., "candidates": ...}``)."""
    return {name: value() for name, value in _values(request).items()}


def render(template: str, request: NavigatorRequest) -> str:
    """``template`` with every ``{{name}}`` replaced by its value for ``request`` (the names are checked when
    the file is read; one unknown here is left as written)."""
    values = _values(request)

    def fill(match: re.Match[str]) -> str:
        value = values.get(match.group(1))
        return value() if value is not None else match.group(0)

    return _PLACEHOLDER.sub(fill, template)


def messages(request: NavigatorRequest, prompts: Prompts = DEFAULT_PROMPTS, scores: bool = False) -> Messages:
    """The chat messages for one offer, as ``(role, content)`` pairs (``scores``: the answer is asked for a score
    per offered id)."""
    user = user_prompt(request, scores) if prompts.template is None else render(prompts.template, request)
    return (("system", prompts.system), ("user", user))


def payload(model: str, sent: Messages, fields: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The chat completions request body: the model, the messages, not streamed, then ``fields`` (sampling,
    ``max_tokens``, structured output); without them, deterministic (temperature 0)."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": role, "content": content} for role, content in sent],
        "stream": False,
    }
    body.update(fields if fields is not None else {"temperature": 0})
    return body


# -- prompt files ------------------------------------------------------------------------------------------


def read_prompt_file(path: Path, what: str) -> str:
    """The prompt file's text. Only a regular file is read, and only up to the cap (:mod:`explorer.reading`), so a
    FIFO with no writer or ``/dev/zero`` is refused at once."""
    try:
        data = read_file(path, MAX_PROMPT_FILE_BYTES)
    except FileNotFoundError:
        raise PromptFileError(f"{path}: no such {what} file; check the path") from None
    except IsADirectoryError:
        raise PromptFileError(f"{path}: a folder, not a {what} file; name a text file") from None
    except NotARegularFile as exc:
        raise PromptFileError(f"{path}: {exc.kind}, not a regular file; name a text file for the {what}") from None
    except TooLarge:
        raise PromptFileError(f"{path}: the {what} file is over {MAX_PROMPT_FILE_BYTES:,} bytes; a prompt is "
                              "a few kB") from None
    except OSError as exc:
        raise PromptFileError(f"{path}: cannot read the {what} file: {problem(exc)}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PromptFileError(f"{path}: the {what} file is not UTF-8 text") from None
    if not text.strip():
        raise PromptFileError(f"{path}: the {what} file is empty; write the prompt in it")
    return text


def check_template(text: str, path: Path) -> None:
    """Refuse a template with an unknown ``{{name}}``, naming the file, the line and the names allowed."""
    for match in _PLACEHOLDER.finditer(text):
        name = match.group(1)
        if name not in PLACEHOLDERS:
            line = text.count("\n", 0, match.start()) + 1
            hint = did_you_mean(name, PLACEHOLDERS).replace("allowed keys", "placeholders")
            raise PromptFileError(f"{path}:{line}: unknown placeholder {{{{{name}}}}}{hint}")


class _PromptFiles:
    """Prompt files read once, and again only when they change (by path, modification time and size); thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._texts: dict[tuple[Path, str], tuple[tuple[int, int], str]] = {}

    def text(self, path: Path, what: str) -> str:
        try:
            stat = path.stat()
            mtime = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            mtime = (-1, -1)
        with self._lock:
            cached = self._texts.get((path, what))
        if cached is not None and cached[0] == mtime:
            return cached[1]
        text = read_prompt_file(path, what)
        if what == "prompt template":
            check_template(text, path)
        with self._lock:
            self._texts[(path, what)] = (mtime, text)
        return text


_FILES = _PromptFiles()


def read_prompts(system: Path | None, template: Path | None) -> Prompts:
    """The prompts a call uses: the system prompt file's text (or the built-in one) and the template file's
    (or none); :class:`PromptFileError` with one line when a file cannot be used."""
    if system is None and template is None:
        return DEFAULT_PROMPTS
    return Prompts(
        system=_FILES.text(system, "system prompt") if system is not None else SYSTEM_PROMPT,
        template=_FILES.text(template, "prompt template") if template is not None else None,
    )
