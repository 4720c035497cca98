"""Words for what a walk did, shared by the screen and the command line.

One line per event (the timeline, the step panel's heading), a stop, and
the end of a walk said plainly. Every piece of corpus or navigator text goes
in through :func:`safe_text.safe`, never as markup. Nothing here imports a
widget, the session, a navigator or the evaluation: widgets build on it.
"""

from __future__ import annotations

from collections.abc import Collection

from rich.text import Text

from core import (
    CandidatesOffered,
    NavigatorChose,
    NavigatorFailed,
    NodeEntered,
    PathStopped,
    Policy,
    StopRecord,
    WalkEvent,
    WalkFinished,
    WalkStarted,
)

from ..ending import WalkEnd
from ..navigators.answered import Answered
from ..safe_text import safe
from ..walk_settings import policy_note
from .decisions import NEVER_JUDGED, NEVER_JUDGED_BRIEF, Decision, how_answered, stop_reason
from .state import Cost, WalkState

REASON_STYLE = {
    "leaf": "green",
    "navigator_stopped": "cyan",
    "max_depth": "yellow",
    "visit_budget_exhausted": "yellow",
    "invalid_choice": "magenta",
    "navigator_failed": "red",
    NEVER_JUDGED: "dim",
    NEVER_JUDGED_BRIEF: "dim",
}


def line(*parts: str | Text | tuple[str, str]) -> Text:
    """A Text from plain pieces, ``(text, style)`` pairs and already-safe Texts."""
    text = Text()
    for part in parts:
        if isinstance(part, tuple):
            text.append(part[0], style=part[1])
        else:
            text.append(part)
    return text


PATH_SEPARATOR = " › "
"""Between the nodes of a path, on screen and on the command line."""


def count_of(count: int, word: str, words: str | None = None) -> str:
    """``1 visit``, ``2 visits``, ``1,003 visits``: a count with its noun in the right number."""
    return f"{count:,} {word if count == 1 else words or word + 's'}"


def visits_left(count: int) -> str:
    """``1 visit left``, ``14 visits left``."""
    return f"{count_of(count, 'visit')} left"


def path_text(path: tuple[str, ...] | list[str]) -> str:
    """``billing › refunds › refund-delivery`` (plain: pass it through :func:`safe_text.safe`)."""
    return PATH_SEPARATOR.join(path)


def calls_words(cost: Cost, decisions: str = " decisions") -> str:
    """The live navigator calls, and the answers that needed none: ``3``, or ``2 of 4 decisions (2 forced)``,
    ``0 of 5 decisions (5 replayed)``. ``decisions`` is the noun after the count of decisions (``""``: none)."""
    without = cost.without_call
    if not without:
        return f"{cost.live_calls:,}"
    how = ", ".join(f"{count:,} {kind}" for kind, count in without.items())
    return f"{cost.live_calls:,} of {cost.answers:,}{decisions} ({how})"


def cost_text(cost: Cost, budget: int) -> str:
    """``visits used 3/15 · navigator calls 2 of 4 decisions (2 forced) · characters shipped 2,100``, and the
    tokens when a navigator reported them: what the walk really cost (the walk summary, the results)."""
    text = (f"visits used {cost.visits:,}/{budget:,} · navigator calls {calls_words(cost)} · "
            f"characters shipped {cost.chars:,}")
    if cost.prompt_tokens or cost.completion_tokens:
        text += f" · tokens {cost.prompt_tokens:,} in / {cost.completion_tokens:,} out"
    return text


def count_candidates(offer: CandidatesOffered) -> str:
    """``"9 roots"``, ``"1 child"``..."""
    count = len(offer.candidates)
    return count_of(count, "root") if offer.current is None else count_of(count, "child", "children")


def stop_line(record: StopRecord, unjudged: Collection[str | None] = ()) -> Text:
    """``■ leaf · landed x``: one stop; at a node in ``unjudged`` its reason is ``never judged (not in the
    recording)`` (:func:`~.decisions.stop_reason`)."""
    reason = stop_reason(record, unjudged)
    text = line(("■ " if record.landed else "□ ", REASON_STYLE.get(reason, "")), (reason, REASON_STYLE.get(reason, "")))
    if record.branch is not None:
        text.append(" at branch ")
        text.append_text(safe(record.branch, "bold", width=60))
    if record.detail:
        text.append(" — ")
        text.append_text(safe(record.detail, "dim", width=160))
    if record.landed is not None:
        text.append(" · landed ")
        text.append_text(safe(record.landed, "bold green", width=60))
    elif record.path:
        text.append(" · nothing new landed", style="dim")
    else:
        text.append(" · nothing lands at the start", style="dim")
    return text




ANSWERED_NOTE = {Answered.REPLAYED: " · replayed", Answered.CACHED: " · cached", Answered.WHAT_IF: " · from a what-if"}
"""Said after an answer given without a call (a forced one says so up front)."""


def event_summary(event: WalkEvent, *, forced: bool = False, unjudged: Collection[str | None] = ()) -> Text:
    """One line for one event: the timeline's entries and the step panel's heading.

    A decision a person forced (``forced``, or its transcript says so) reads ``forced by a person: …``, never "navigator
    chose"; a replayed or cached answer says so after it; a stop at a node in ``unjudged`` says ``never judged (not in
    the recording)`` (:func:`~.decisions.stop_reason`)."""
    if isinstance(event, WalkStarted):
        return Text(f"walk started · budget {event.max_nodes_visited} · depth limit {event.max_depth} · "
                    f"on failure {event.on_failure.value}{policy_note(event.policy, event.alpha)}")
    if isinstance(event, CandidatesOffered):
        if event.current is None:
            return Text(f"offered {count_candidates(event)}")
        return line(f"offered {count_candidates(event)} of ", safe(event.current.title, width=50))
    if isinstance(event, NavigatorChose):
        how = how_answered(event, forced)
        who = "forced by a person:" if how is Answered.FORCED else "navigator chose"
        if not event.selected:
            text = Text("forced by a person: stop here" if how is Answered.FORCED else "navigator chose nothing")
        else:
            text = line(f"{who} ", Text(", ").join(safe(i, width=30) for i in event.selected[:4]))
            if len(event.selected) > 4:
                text.append(f" +{len(event.selected) - 4}")
        if event.hallucinated:
            text.append(f" ({len(event.hallucinated)} not offered)", style="magenta")
        text.append(ANSWERED_NOTE.get(how, ""), style="dim")
        return text
    if isinstance(event, NavigatorFailed):
        how = how_answered(event, forced)
        return line(("navigator failed: ", "red"), safe(event.error, width=80), (ANSWERED_NOTE.get(how, ""), "dim"))
    if isinstance(event, NodeEntered):
        return line("entered ", safe(event.node.title, width=50), f" (visit {event.visits_used})")
    if isinstance(event, PathStopped):
        record = event.record
        where = record.branch if record.branch is not None else (record.node or "the start")
        reason = stop_reason(record, unjudged)
        return line((reason, REASON_STYLE.get(reason, "")), " at ", safe(where, width=50))
    if isinstance(event, WalkFinished):
        return Text(f"walk finished · {len(event.result.documents)} landed")
    return Text(type(event).__name__)


def capped_note(decision: Decision) -> str:
    """``"capped by the visits left: 2 visits left, 9 candidates offered"`` when the navigator's pick was capped
    by the visits left (:attr:`Decision.capped_by_visits`), else ``""``: the step panel says it, not only the
    transcript."""
    if not decision.capped_by_visits:
        return ""
    offer = decision.offer
    return (f"capped by the visits left: {visits_left(offer.remaining_visits)}, "
            f"{count_of(len(offer.candidates), 'candidate')} offered")


NAMES_SHOWN = 8
"""Ids named in one line of the ending; the rest are counted."""


def _names(ids: tuple[str, ...]) -> Text:
    shown = Text(", ").join(safe(i, width=40) for i in ids[:NAMES_SHOWN])
    if len(ids) > NAMES_SHOWN:
        shown.append(f" and {len(ids) - NAMES_SHOWN:,} more")
    return shown


def landed_line(state: WalkState) -> Text:
    """``3 landed — leaf ×2, visit_budget_exhausted ×1`` (or ``nothing landed``)."""
    if not state.landed:
        return Text("nothing landed")
    counts: dict[str, int] = {}
    for record in state.landed.values():
        reason = state.reason_of(record, brief=True)
        counts[reason] = counts.get(reason, 0) + 1
    text = Text(f"{len(state.landed)} landed — ")
    for number, (reason, count) in enumerate(sorted(counts.items(), key=lambda item: (-item[1], item[0]))):
        if number:
            text.append(", ")
        text.append(reason, style=REASON_STYLE.get(reason, ""))
        text.append(f" ×{count}")
    return text


def ending_text(state: WalkState) -> Text:
    """Why the walk ended, in words: how it ended and where, what landed by reason, what was never entered.

    Empty when the state is not at the end of an ended walk.
    """
    ending = state.ending()
    if ending is None:
        return Text()
    lines: list[Text] = []
    if ending.end is WalkEnd.FINISHED:
        head = Text("Finished: ", style="bold green")
        if ending.empty_failure:
            head.append("no documents — the navigator failed under on-failure empty: ", style="red")
            head.append_text(safe(ending.empty_failure, "red", width=300))
            lines.append(head)
        else:
            lines.append(head + landed_line(state))
    else:
        word = "Cancelled" if ending.end is WalkEnd.CANCELLED else "Failed"
        head = Text(f"{word} at step {ending.step}", style="bold red")
        offer = ending.pending_offer
        if offer is not None:
            where = "the roots" if offer.current is None else None
            head.append(", while the navigator was choosing among ")
            if where is None and offer.current is not None:
                head.append(f"{count_candidates(offer)} of ")
                head.append_text(safe(offer.current.title, width=60))
            else:
                head.append(count_candidates(offer))
        head.append(": ")
        lines.append(head + landed_line(state))
        if ending.error:
            lines.append(Text("Why: ", style="bold red") + safe(ending.error, "red", width=400))
    # A best-first walk's chosen nodes wait in its frontier until a visit takes them: those the visits did not
    # reach were left waiting there, not turned down.
    never = "left waiting in the frontier" if state.policy is not Policy.DEPTH_FIRST else "chosen but never entered"
    for why, ids in ending.never_entered.items():
        line_ = Text(f"{len(ids)} {never}, {why}: ", style="yellow")
        lines.append(line_ + _names(ids))
    if ending.hallucinated:
        count = len(ending.hallucinated)
        lines.append(Text(f"{count} returned but never offered (hallucinated): ", style="magenta")
                     + _names(ending.hallucinated))
    return Text("\n").join(lines)
