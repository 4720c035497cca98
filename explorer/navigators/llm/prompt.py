"""What the LLM navigator sends: a system prompt and the offer written out as the user message.

The model sees the query, where the walk is, the numbered candidates (id, title, summary; never
a document's content) and the visits left. :func:`messages` is also what the transcript shows,
exactly as sent.
"""

from __future__ import annotations

from typing import Any, Final

from core import NavigatorRequest

from .errors import one_line

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


def user_prompt(request: NavigatorRequest) -> str:
    """The user message: the query, where the walk is, the numbered candidates and the remaining visits."""
    lines = [f"Query: {request.query}", ""]
    if request.current is None:
        lines.append("You are at the top of the corpus: the candidates are its top-level sections.")
    else:
        # One line each, so a multi-line summary cannot break the numbered layout.
        lines.append(f"You are in: {one_line(request.current.title)}")
        lines.append(f"Its summary: {one_line(request.current.summary) or '(none)'}")
    lines += ["", "Candidates (the sections directly below):"]
    for number, view in enumerate(request.candidates, start=1):
        lines.append(f"{number}. id: {view.id}")
        lines.append(f"   title: {one_line(view.title)}")
        lines.append(f"   summary: {one_line(view.summary) or '(none)'}")
    lines += [
        "",
        f"Remaining visits: {request.remaining_visits}. Entering a section costs one visit, and so does every "
        "section below it that you enter later, so select only the sections worth it.",
        "",
        'Answer with JSON only: {"selected": ["<id>", ...], "rationale": "..."}. Use only the ids listed '
        "above, most promising first; an empty list stops here.",
    ]
    return "\n".join(lines)


def messages(request: NavigatorRequest) -> Messages:
    """The chat messages for one offer, as ``(role, content)`` pairs."""
    return (("system", SYSTEM_PROMPT), ("user", user_prompt(request)))


def payload(model: str, sent: Messages) -> dict[str, Any]:
    """The chat completions request body: deterministic (temperature 0), not streamed."""
    return {
        "model": model,
        "messages": [{"role": role, "content": content} for role, content in sent],
        "temperature": 0,
        "stream": False,
    }
