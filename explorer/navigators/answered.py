"""How a decision was answered: live by the navigator, or without a call (forced, replayed, cached, what-if).

A navigator that answers without calling what it stands for says so in the answer's transcript, with one
``("answered", "<how>: ...")`` pair (``core`` copies transcripts onto the walk's events unread, and traces
keep them), so everything that counts what a walk cost — calls, characters and tokens really sent — can
tell a live call from an answer that cost nothing: :func:`answered_by` reads it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

LABEL = "answered"
"""The transcript label that says how a decision was answered (absent: live)."""


class Answered(StrEnum):
    """How one decision was answered."""

    LIVE = "live"
    """The navigator was asked (an HTTP call, a model run, a heuristic's scoring)."""
    FORCED = "forced"
    """A person forced the answer (``--force``, a fork): no navigator call."""
    REPLAYED = "replayed"
    """Repeated from a record (a trace, or the walk a fork came from): no navigator call."""
    CACHED = "cached"
    """An identical request's answer, read from the response cache: no call."""
    WHAT_IF = "what-if"
    """Taken from a what-if: another navigator's (or prompt's) answer to this offer, asked beside the walk and
    chosen by a person; no call of the walk's own navigator. Marked ``("answered", "what-if: ...")``."""


def answered_pair(how: Answered, detail: str = "") -> tuple[str, str]:
    """The transcript pair that marks an answer given without a call: ``("answered", "cached: ...")``."""
    return LABEL, f"{how.value}: {detail}" if detail else how.value


NEVER_JUDGED = "never judged (not in the recording)"
"""What marks an answer given for a node its record never judged (reachable now with more visits, and no navigator
to ask): ``("answered", "replayed: never judged (not in the recording): ...")``. It is replayed (no call), and the
explorer says its stop ``never judged``, never ``navigator_stopped``: the navigator never stopped there."""


def never_judged_pair(note: str) -> tuple[str, str]:
    """The transcript pair of an answer for a node the record never judged (:data:`NEVER_JUDGED`)."""
    return answered_pair(Answered.REPLAYED, f"{NEVER_JUDGED}: {note}")


def never_judged(transcript: Sequence[tuple[str, str]] | None) -> bool:
    """Whether the answer with ``transcript`` stands for a node its record never judged (:func:`never_judged_pair`)."""
    for label, text in transcript or ():
        if label == LABEL:
            return text.startswith(f"{Answered.REPLAYED.value}: {NEVER_JUDGED}")
    return False


def answered_by(transcript: Sequence[tuple[str, str]] | None) -> Answered:
    """How the decision with ``transcript`` was answered (:attr:`Answered.LIVE` when nothing says otherwise)."""
    for label, text in transcript or ():
        if label == LABEL:
            word = text.partition(":")[0].strip()
            try:
                return Answered(word)
            except ValueError:
                return Answered.LIVE
    return Answered.LIVE


DUPLICATES_LABEL = "duplicates"
"""The transcript label that counts the ids an answer repeated: ``("duplicates", "7 duplicate ids dropped")``.

``core`` keeps each id of an answer once (the first), so the events cannot say how many were repeated; a navigator
that parses a model's answer (``openai_compat``, ``local:``) counts them as it reads them and says so here, where
the walk's habits (:mod:`explorer.walks.habits`) read it back. Absent (an older trace, another navigator): none
counted."""


def duplicates_pair(count: int) -> tuple[str, str]:
    """The transcript pair that says ``count`` ids of an answer repeated an earlier one (:data:`DUPLICATES_LABEL`)."""
    return DUPLICATES_LABEL, f"{count:,} duplicate id dropped" if count == 1 else f"{count:,} duplicate ids dropped"


def duplicates_in(transcript: Sequence[tuple[str, str]] | None) -> int:
    """How many repeated ids the answer with ``transcript`` dropped, as its :func:`duplicates_pair` says (0: none
    said, or a pair this version cannot read)."""
    for label, text in transcript or ():
        if label == DUPLICATES_LABEL:
            count = text.partition(" ")[0].replace(",", "")
            return int(count) if count.isascii() and count.isdigit() else 0
    return 0
