"""What a decision's transcript holds, in the parts a person copies and reads: the request sent, the raw answer, and
JSON shown pretty-printed.

UI-free. A navigator's transcript is ``(label, text)`` pairs, copied unread onto the walk's events: an LLM's holds
the messages sent (``system``, ``user``), what was sent with them (``provider``, ``parameters``, ``schema``), the
model's raw ``answer`` and the ``http`` outcome; ``lexical:`` holds its terms and scores. The request is every pair
before the raw answer (less the ``answered`` mark and the ``http`` outcome, which were never sent); the raw answer
is the ``answer`` pair's text, byte for byte, or else the failure's error or the rationale.
"""

from __future__ import annotations

import json

from core import NavigatorChose, NavigatorFailed

from ..navigators.answered import LABEL as ANSWERED_LABEL
from .decisions import Decision

__all__ = ["ANSWER_LABEL", "pretty_json", "raw_answer", "request_text"]

ANSWER_LABEL = "answer"
"""The transcript label of the model's raw answer (``openai_compat``, ``local:``)."""

NOT_SENT = frozenset({ANSWERED_LABEL, "http"})
"""Transcript labels that say how a decision went, not what was sent."""


def request_text(decision: Decision) -> str | None:
    """What ``decision``'s navigator was sent, as its transcript has it: one pair's text alone, byte for byte, or
    each pair as its label, a line break and its text, a blank line between (``None``: no transcript)."""
    answer = decision.answer
    if answer is None or not answer.transcript:
        return None
    sent: list[tuple[str, str]] = []
    for label, text in answer.transcript:
        if label == ANSWER_LABEL:
            break
        if label not in NOT_SENT:
            sent.append((label, text))
    if not sent:
        return None
    if len(sent) == 1:
        return sent[0][1]
    return "\n\n".join(f"{label}\n{text}" for label, text in sent)


def raw_answer(decision: Decision) -> str | None:
    """What ``decision``'s navigator answered, byte for byte: the transcript's ``answer``, else a failure's error or
    the rationale given (``None``: no answer yet, or an answer with nothing to copy)."""
    answer = decision.answer
    if answer is None:
        return None
    for label, text in answer.transcript or ():
        if label == ANSWER_LABEL:
            return text
    if isinstance(answer, NavigatorFailed):
        return answer.error
    if isinstance(answer, NavigatorChose) and answer.rationale:
        return answer.rationale
    return None


def pretty_json(text: str) -> str | None:
    """``text`` pretty-printed (two spaces an indent) when it is one JSON object or array, else ``None``: a
    transcript shows it so, and copies ``text`` itself."""
    start = text.lstrip()[:1]
    if start not in ("{", "["):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return json.dumps(value, indent=2, ensure_ascii=False)
