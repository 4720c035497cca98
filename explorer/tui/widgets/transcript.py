"""The transcript: what the navigator was really sent and what it really answered, for the decision shown."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from rich.text import Text
from textual.widgets import Static

from core import NavigatorChose, NavigatorFailed

from ...corpora import Corpus
from ...safe_text import safe
from ...walks.decisions import Decision
from ...walks.transcripts import pretty_json
from .score_bar import scored

SHOWN_CHARS = 100_000
"""Characters of one transcript entry drawn; the rest is counted (the trace keeps it all)."""


class TranscriptView(Static):
    """Every ``(label, text)`` pair of the decision's transcript, in full and literal (escaped, never markup)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"transcript--label", "transcript--dim", "transcript--forced"}

    def show(self, decision: Decision | None, corpus: Corpus | None = None, habits: Sequence[str] = ()) -> None:
        """Show ``decision``'s transcript (``None``: say how to get one); its node is named by its title in
        ``corpus``; ``habits`` are the LLM's habits its answer shows (:meth:`~explorer.walks.habits.Habits.notes`),
        said under the heading."""
        style = self.get_component_rich_style
        node_title = None
        if decision is not None and decision.node is not None and corpus is not None and decision.node in corpus.index:
            node_title = corpus.title_of(decision.node)
        if decision is None:
            self.update(Text("Step to an offer or an answer to read what the navigator was sent and said.",
                             style=style("transcript--dim")))
            return
        where = "the roots" if decision.node is None else (node_title or decision.node)
        text = Text()  # a Text's own style would colour all of it: only the labels are the label's colour
        text.append("Decision at ", style=style("transcript--label"))
        text.append_text(safe(where, width=80))
        # One numbering: the step panel's. A decision is the step of its answer; its offer came just before.
        offered = f", offered at step {decision.offer_seq}" if decision.answer_seq is not None else ", awaited"
        text.append(f"  (step {decision.step}{offered})", style=style("transcript--dim"))
        if decision.forced:
            text.append("  ⚑ forced by a person", style=style("transcript--forced"))
        if habits:
            text.append("\nHabits: ", style=style("transcript--label"))
            text.append_text(safe(" · ".join(habits), style("transcript--forced"), width=600))
        answer = decision.answer
        if answer is None:
            text.append("\n\nNo answer yet: the navigator has not answered this offer.", style=style("transcript--dim"))
            self.update(text)
            return
        if isinstance(answer, NavigatorChose) and answer.scores:
            text.append_text(self._scores(decision, answer.scores))
        if answer.transcript is None:
            kind = "an answer" if isinstance(answer, NavigatorChose) else "a failure"
            text.append(f"\n\nThe navigator gave {kind} with no transcript.", style=style("transcript--dim"))
            if isinstance(answer, NavigatorChose) and answer.rationale:
                text.append("\n\nrationale\n", style=style("transcript--label"))
                text.append_text(safe(answer.rationale, multiline=True))
            if isinstance(answer, NavigatorFailed):
                text.append("\n\nerror\n", style=style("transcript--label"))
                text.append_text(safe(answer.error, multiline=True))
            self.update(text)
            return
        for label, body in answer.transcript:
            text.append("\n\n")
            text.append_text(safe(label, style("transcript--label"), width=60))
            pretty = pretty_json(body) if len(body) <= SHOWN_CHARS else None
            if pretty is not None:  # shown so; y and Y copy what was sent and said, byte for byte
                text.append("  JSON, pretty-printed", style=style("transcript--dim"))
            text.append("\n")
            text.append_text(safe(pretty if pretty is not None else body[:SHOWN_CHARS], multiline=True))
            if len(body) > SHOWN_CHARS:
                text.append(f"\n… {len(body) - SHOWN_CHARS:,} more characters (a saved trace keeps them all)",
                            style=style("transcript--dim"))
        self.update(text)

    def _scores(self, decision: Decision, scores: Mapping[str, float]) -> Text:
        """The navigator's score for each candidate it scored, highest first, as a bar and its figure."""
        style = self.get_component_rich_style
        titles = {candidate.id: candidate.title for candidate in decision.offer.candidates}
        text = Text("\n\n")
        text.append("scores", style=style("transcript--label"))
        text.append("  the navigator's, 0 to 1, highest first", style=style("transcript--dim"))
        for node_id, score in sorted(scores.items(), key=lambda pair: -pair[1]):
            text.append(f"\n{scored(score)}  ")
            text.append_text(safe(titles.get(node_id, node_id), width=60))
            text.append("  ")
            text.append_text(safe(node_id, style("transcript--dim"), width=40))
        return text
