"""The step panel: where the walk is, what was just offered, what the navigator chose and why."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from core import NavigatorChose, NodeEntered, OnFailure, PathStopped, Policy, WalkFinished, WalkStarted

from ...corpora import Corpus
from ...safe_text import safe, styled
from ...walks.describe import PATH_SEPARATOR, count_candidates, event_summary, stop_line, visits_left
from ...walks.picking import Pick
from ...walks.state import WalkState
from .score_bar import scored

TITLE_WIDTH = 60
SUMMARY_WIDTH = 160
MAX_ROWS = 100
"""Candidates listed in full; a wider offer ends with a line that counts (and names the chosen of) the rest."""
FRONTIER_SHOWN = 5
"""How many of a best-first walk's waiting nodes the step panel names (the rest are counted)."""


@dataclass(frozen=True)
class ShownStep:
    """What the step panel shows: the walk's ``state`` at event ``step`` of ``total``; the ``pick`` open on it
    (its candidates become a picker: the manual navigator waits, or a person answers an earlier decision anew);
    ``ending``, why the walk ended; ``capped``, that the navigator's pick was capped by the visits left;
    ``verdict``, what an evaluation made of this walk (why a question was missed); ``habits``, the LLM's habits its
    answer shows (:meth:`~explorer.walks.habits.Habits.notes`); ``fault``, the judge's words at the first wrong
    turn."""

    state: WalkState
    step: int = 0
    total: int = 0
    pick: Pick | None = None
    ending: Text | None = None
    capped: str = ""
    verdict: str = ""
    habits: Sequence[str] = ()
    fault: Sequence[str] = ()
    """At a miss's first wrong turn, once judged: whose fault it was, and where a flat search ranks the expected
    node (plain words: they name corpus text)."""


class StepPanel(Static):
    """Rendered from one :class:`ShownStep` of a walk on ``corpus``; while a pick is open, its candidates are a
    picker."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "step--heading",
        "step--label",
        "step--path",
        "step--chosen",
        "step--rejected",
        "step--offered",
        "step--hallucinated",
        "step--rationale",
        "step--failure",
        "step--picked",
        "step--hint",
        "step--dim",
        "step--forced",
    }

    def _frontier_line(self, state: WalkState, corpus: Corpus) -> Text:
        """A best-first walk's queue: the next nodes in line, best first, each with its path score, and how many wait
        behind them."""
        style = self.get_component_rich_style
        line = styled("Next    ", style("step--label"))
        if not state.frontier:
            line.append("nothing waits in the frontier", style=style("step--dim"))
            return line
        shown = state.frontier.best(FRONTIER_SHOWN)
        line.append_text(Text(" · ").join(
            safe(corpus.title_of(node) if node in corpus.index else node, width=30) + Text(f" {score:.2f}")
            for node, score in shown))
        if len(state.frontier) > len(shown):
            line.append(f" · and {len(state.frontier) - len(shown):,} more waiting", style=style("step--dim"))
        return line

    def __init__(self, corpus: Corpus, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.corpus = corpus

    def show(self, shown: ShownStep) -> None:
        """Show one step of the walk (:class:`ShownStep`): the answer before the list it came from."""
        state = shown.state
        parts = [self._heading(shown), *self._verdict(shown.verdict), *self._fault(shown.fault), self._where(state),
                 *self._last(shown)]
        if state.policy is Policy.BEST_FIRST:
            parts.append(self._frontier_line(state, self.corpus))
        parts += self._offered(shown)
        parts += self._picking(shown.pick, state) if shown.pick is not None else self._answer(shown)
        parts += self._failure(state)
        parts += self._candidates(state, shown.pick)
        self.update(Group(*parts))

    def _heading(self, shown: ShownStep) -> Text:
        style = self.get_component_rich_style
        heading = styled(f"Step {shown.step}/{shown.total}  ", style("step--heading"))
        state = shown.state
        if state.last is not None:
            heading.append_text(event_summary(state.last, forced=state.choice_forced, unjudged=state.never_judged))
        else:
            heading.append("no walk yet", style=style("step--dim"))
        return heading

    def _verdict(self, verdict: str) -> list[Text]:
        if not verdict:
            return []
        style = self.get_component_rich_style
        said = styled("Verdict ", style("step--label"))
        said.append_text(safe(verdict, style("step--failure"), width=600))
        return [said]

    def _fault(self, fault: Sequence[str]) -> list[Text]:
        """``Fault   the map hid it: …`` then ``Flat    a flat search finds it 2nd: the walk lost it``."""
        style = self.get_component_rich_style
        return [styled(label, style("step--label")) + safe(words, style("step--failure") if number == 0 else "",
                                                           width=600)
                for number, (label, words) in enumerate(zip(("Fault   ", "Flat    "), fault, strict=False)) if words]

    def _where(self, state: WalkState) -> Text:
        style, corpus = self.get_component_rich_style, self.corpus
        where = styled("At      ", style("step--label"))
        if state.current_path:
            titles = [safe(corpus.title_of(i), width=40) if i in corpus.index else safe(i) for i in state.current_path]
            where.append_text(Text(PATH_SEPARATOR, style=style("step--dim")).join(titles))
            where.append(f"  (depth {len(state.current_path) - 1})", style=style("step--dim"))
        elif state.offer is not None:
            where.append("the start: the roots are offered", style=style("step--dim"))
        elif state.step and not state.finished:
            where.append("the start (nothing offered yet)", style=style("step--dim"))
        else:
            where.append("-", style=style("step--dim"))
        return where

    def _last(self, shown: ShownStep) -> list[Text]:
        """What the event on screen did: a node entered, a path stopped, the start, the end."""
        style, corpus, state = self.get_component_rich_style, self.corpus, shown.state
        parts: list[Text] = []
        last = state.last
        if isinstance(last, NodeEntered):
            entered = styled("Entered ", style("step--label"))
            entered.append_text(safe(corpus.title_of(last.node.id) if last.node.id in corpus.index else last.node.id))
            entered.append(f"  (visit {last.visits_used}, {last.remaining_visits} left)", style=style("step--dim"))
            parts.append(entered)
        elif isinstance(last, PathStopped):
            parts.append(styled("Stopped ", style("step--label")) + stop_line(last.record, state.never_judged))
        elif isinstance(last, WalkStarted):
            parts.append(styled("Press n to see the first offer.", style("step--hint")))
        elif isinstance(last, WalkFinished) and not shown.ending:
            parts.append(styled("The walk is over: the results are in the Results tab.", style("step--hint")))
        if shown.ending:
            parts.append(shown.ending)
        return parts

    def _offered(self, shown: ShownStep) -> list[Text]:
        offer = shown.state.offer
        if offer is None:
            return []
        style = self.get_component_rich_style
        line = styled("Offered ", style("step--label"))
        line.append(f"{count_candidates(offer)} at depth {offer.depth} · {visits_left(offer.remaining_visits)} · "
                    f"{offer.chars_shipped:,} chars shipped")
        return [line, styled(f"        {shown.capped}", style("step--forced"))] if shown.capped else [line]

    def _picking(self, pick: Pick, state: WalkState) -> list[Text]:
        """The picker's keys, and the ids typed that were not offered."""
        style = self.get_component_rich_style
        offered_ids = {c.id for c in state.offer.candidates} if state.offer is not None else set()
        hint = styled("Fork here: " if pick.forking else "Your choice: ", style("step--label"))
        hint.append("1-9 toggle · i type an id or a number (even one not offered) · a answer (nothing picked: "
                    "stop here) · s stop here" + (" · Escape closes" if pick.forking else ""),
                    style=style("step--hint"))
        typed = [i for i in pick.picked if i not in offered_ids]
        if not typed:
            return [hint]
        extra = styled("Typed   ", style("step--label"))
        extra.append_text(Text(", ").join(safe(i, width=40) for i in typed))
        extra.stylize(style("step--hallucinated"), 8)
        return [hint, extra]

    def _answer(self, shown: ShownStep) -> list[Text]:
        """What the navigator chose (or a person forced), in how long and for how many tokens, and why."""
        state, style = shown.state, self.get_component_rich_style
        choice = state.choice
        if not isinstance(choice, NavigatorChose):
            return []
        line = styled("⚑ Forced " if state.choice_forced else "Chose   ",
                      style("step--forced" if state.choice_forced else "step--label"))
        if choice.valid:
            line.append_text(Text(", ").join(safe(i, width=40) for i in choice.valid))
        elif choice.selected:
            line.append("no id that was offered", style=style("step--hallucinated"))
        else:
            line.append("nothing: the path stops here", style=style("step--dim"))
        line.append(f"   {choice.seconds:.2f} s", style=style("step--dim"))
        if choice.usage:
            tokens = ", ".join(f"{k} {v}" for k, v in choice.usage.items())
            line.append("   ")
            line.append_text(safe(tokens, style("step--dim")))
        parts = [line]
        if choice.hallucinated:
            ghosts = styled("Not offered (hallucinated): ", style("step--hallucinated"))
            ghosts.append_text(Text(", ").join(safe(i, width=40) for i in choice.hallucinated))
            parts.append(ghosts)
        if choice.rationale:
            why = styled("Why     ", style("step--label"))
            why.append_text(safe(choice.rationale, width=600))
            why.stylize(style("step--rationale"), 8)
            parts.append(why)
        if shown.habits:
            flagged = styled("Habits  ", style("step--label"))
            flagged.append_text(safe(" · ".join(shown.habits), style("step--forced"), width=600))
            parts.append(flagged)
        return parts

    def _failure(self, state: WalkState) -> list[Text]:
        if state.failure is None:
            return []
        style = self.get_component_rich_style
        failed = styled("Failed  ", style("step--failure"))
        failed.append_text(safe(state.failure.error, width=400))
        consequence = {
            OnFailure.THROW: "the walk stops with this error",
            OnFailure.EMPTY: "the walk ends with no documents",
            OnFailure.PARTIAL: "this node lands with navigator_failed and the walk goes on",
        }[state.failure.policy]
        return [failed, Text(f"        on failure: {state.failure.policy.value} — {consequence}",
                             style=style("step--dim"))]

    def _candidates(self, state: WalkState, pick: Pick | None) -> list[Text]:
        """The offer's candidates, one a row, marked chosen, rejected or waiting (as a picker's, with a box)."""
        offer, choice, style = state.offer, state.choice, self.get_component_rich_style
        if offer is None:
            return []
        parts: list[Text] = []
        chosen = set(choice.selected) if choice else set()
        # The navigator's score for each candidate, a bar and its figure, when it gave scores (a person picking
        # anew sees the boxes instead).
        scores = choice.scores if choice is not None and pick is None else None
        for number, candidate in enumerate(offer.candidates[:MAX_ROWS], start=1):
            row = Text(no_wrap=True, overflow="ellipsis")
            if pick is not None:
                mark, mark_style = ("[x] " if candidate.id in pick.picked else "[ ] "), "step--picked"
                row.append(f"{number:>2} " if number <= 9 else f"{number:>3} ", style=style("step--hint"))
            elif choice is None:
                mark, mark_style = "?  ", "step--offered"
            elif candidate.id in chosen:
                mark, mark_style = ("⚑  ", "step--forced") if state.choice_forced else ("✓  ", "step--chosen")
            else:
                mark, mark_style = "✗  ", "step--rejected"
            row.append(mark)
            if scores is not None:
                row.append(scored(scores.get(candidate.id)) + "  ")  # in the row's colour: chosen or rejected
            row.append_text(safe(candidate.title, width=TITLE_WIDTH))
            row.append("  ")
            row.append_text(safe(candidate.id, width=40))
            row.stylize(style(mark_style))
            if candidate.summary:
                row.append("  ")
                summary = safe(candidate.summary, width=SUMMARY_WIDTH)
                summary.stylize(style("step--dim"))
                row.append_text(summary)
            parts.append(row)
        rest = offer.candidates[MAX_ROWS:]
        if rest:
            more = styled(f"… and {len(rest):,} more candidates", style("step--dim"))
            chosen_later = [c.id for c in rest if c.id in chosen]
            if chosen_later:
                more.append(", chosen among them: ")
                more.append_text(Text(", ").join(safe(i, width=40) for i in chosen_later[:10]))
            parts.append(more)
        return parts
