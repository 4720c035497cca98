"""What the walk screen says about the walk on it: the status line under the meter, and the results' summary.

Both are derived, never stored: the screen builds a :class:`Moment` from its state and asks for the words.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from ...ending import WalkEnd
from ...safe_text import styled
from ...walks.describe import cost_text, ending_text
from ...walks.history import WalkHistory
from ...walks.picking import Pick
from ...walks.session import WalkSession
from ...walks.state import WalkState


@dataclass(frozen=True)
class Moment:
    """What the status line depends on."""

    walk: bool
    """Whether any walk is on screen."""
    forking: bool = False
    picking: bool = False
    playing: bool = False
    pace: float = 1.0
    cursor: int = 0
    total: int = 0
    end: WalkEnd | None = None
    busy_seconds: float | None = None
    """How long the navigator has been thinking, while it is (``None``: it is not)."""
    local_model: str = ""
    """While the navigator thinks: what its local model does, when it loads for this decision (``loading local
    model smollm2…``, then ``local model smollm2 ready (1.2 s) · working…``); ``""``: nothing to say."""

    @property
    def at_latest(self) -> bool:
        return self.cursor >= self.total


def moment_of(history: WalkHistory | None, session: WalkSession | None, pick: Pick | None, *, playing: bool,
              pace: float, local_model: str = "") -> Moment:
    """The moment of the walk on screen (``history``, its live ``session``, an open ``pick``; ``local_model``:
    what its local model's server does, :attr:`Moment.local_model`)."""
    if history is None:
        return Moment(walk=False)
    busy = session.busy_seconds if session is not None and session.busy else None
    return Moment(walk=True, forking=pick is not None and pick.forking, picking=pick is not None, playing=playing,
                  pace=pace, cursor=history.cursor, total=len(history.events), end=history.end, busy_seconds=busy,
                  local_model=local_model if busy is not None else "")


def status_line(moment: Moment) -> str:
    """The status line: the first case that holds, in the order a person needs them."""
    match moment:
        case Moment(walk=False):
            return "no walk yet · type a question and press Enter"
        case Moment(forking=True):
            return "fork: 1-9 pick · i type an id · a answer · s stop here · Escape closes"
        case Moment(picking=True):
            return "your turn: 1-9 pick · a answer · s stop here · i type an id"
        case Moment(playing=True, pace=pace):
            return f"playing · {pace:g} s per step · p pauses"
        case Moment(at_latest=False, cursor=cursor, total=total):
            return f"viewing step {cursor} of {total} · f forward · F latest · e fork here"
        case Moment(end=WalkEnd.FINISHED):
            return "finished · e forks a decision · w walks · r walks again"
        case Moment(end=WalkEnd.CANCELLED):
            return "cancelled · b steps back · e forks · r restarts"
        case Moment(end=WalkEnd.FAILED):
            return "failed · see the step panel · e forks · r restarts"
        case Moment(busy_seconds=float(seconds), local_model=str(model)) if model:
            return f"{model} {seconds:.1f} s · x cancels"
        case Moment(busy_seconds=float(seconds)):
            return f"working… {seconds:.1f} s · x cancels"
    return "paused · n next · c continue · p play · e fork"


def results_summary(state: WalkState, moment: Moment, *, live: bool) -> Text:
    """The results' summary line: how the walk ended (or that it runs), what it used, and why it ended."""
    if not moment.walk or not moment.total:
        return styled("No walk yet.", "dim")
    end = moment.end.value if moment.end is not None else ("running" if live else "-")
    text = Text(end, style="bold")
    if moment.end in (WalkEnd.FINISHED, WalkEnd.FAILED):
        text.append(" (not cancelled)")
    text.append(f" · {cost_text(state.cost(), state.budget)} · {len(state.landed):,} landed")
    if not moment.at_latest:
        text.append(f"   (as of step {moment.cursor})", style="italic")
    ending = ending_text(state)
    if ending:
        text.append("\n")
        text.append_text(ending)
    return text
