"""Two walks side by side from their first divergence: each answer with its rationale and transcript."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from core import NavigatorChose, NavigatorFailed

from ...safe_text import safe, styled
from ...walks.compare import Comparison, Landing
from ...walks.decisions import Decision
from ...walks.describe import calls_words

TRANSCRIPT_CHARS = 4_000
"""Characters of each transcript entry shown side by side; the Transcript tab has them all."""


class ComparePanel(Static):
    """Shown in place of the step panel while two walks are compared."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"compare--a", "compare--b", "compare--label", "compare--dim"}

    def show(self, comparison: Comparison) -> None:
        style = self.get_component_rich_style
        parts: list[RenderableType] = []
        head = styled("Comparing ", style("compare--label"))
        head.append_text(safe("A = " + comparison.a_name, style("compare--a"), width=90))
        head.append("  with  ")
        head.append_text(safe("B = " + comparison.b_name, style("compare--b"), width=90))
        parts.append(head)
        for note in comparison.notes:
            parts.append(styled("note: ", style("compare--dim")) + safe(note, width=200))
        divergence = comparison.divergence
        if divergence is None:
            parts.append(styled("Same decisions: the two walks chose alike at every offer.", "bold"))
        else:
            where = "the roots" if divergence.node is None else divergence.node
            line = styled(f"First divergence: decision {divergence.number}, at ", style("compare--label"))
            line.append_text(safe(where, width=60))
            line.append(f" — {divergence.kind.value}")
            parts.append(line)
            table = Table(expand=True, show_lines=True, pad_edge=False)
            table.add_column(styled("A", style("compare--a")), ratio=1, overflow="fold")
            table.add_column(styled("B", style("compare--b")), ratio=1, overflow="fold")
            table.add_row(self._side(divergence.a), self._side(divergence.b))
            parts.append(table)
        parts.append(self._landings("Landed only in A", comparison.only_a, "a"))
        parts.append(self._landings("Landed only in B", comparison.only_b, "b"))
        parts.append(self._landings("Landed in both", comparison.both, "both"))
        a, b = comparison.a_totals, comparison.b_totals
        parts.append(Text(f"visits A {a.visits} · B {b.visits}   navigator calls A {calls_words(a)} · B "
                          f"{calls_words(b)}   characters shipped A {a.chars:,} · B {b.chars:,}",
                          style=style("compare--dim")))
        parts.append(Text("Tree: A only · B only · = both · ⑂ where they part.  D ends the comparison.",
                          style=style("compare--dim")))
        self.update(Group(*parts))

    def _side(self, decision: Decision | None) -> Text:
        style = self.get_component_rich_style
        if decision is None:
            return styled("this walk had ended: no decision here", style("compare--dim"))
        text = styled(f"offer at step {decision.offer_seq}: ", style("compare--dim"))
        text.append_text(Text(", ").join(safe(c.id, width=30) for c in decision.offer.candidates[:12]))
        if len(decision.offer.candidates) > 12:
            text.append(f" +{len(decision.offer.candidates) - 12}")
        answer = decision.answer
        text.append("\n")
        if isinstance(answer, NavigatorChose):
            text.append("⚑ forced " if decision.forced else "chose ", style=style("compare--label"))
            text.append_text(Text(", ").join(safe(i, width=40) for i in answer.selected) or Text("nothing"))
            if answer.rationale:
                text.append("\nwhy ", style=style("compare--label"))
                text.append_text(safe(answer.rationale, width=600))
        elif isinstance(answer, NavigatorFailed):
            text.append("failed ", style=style("compare--label"))
            text.append_text(safe(answer.error, width=600))
        else:
            text.append("no answer yet", style=style("compare--dim"))
        transcript = answer.transcript if answer is not None else None
        for label, body in transcript or ():
            text.append("\n")
            text.append_text(safe(label, style("compare--label"), width=40))
            text.append("\n")
            text.append_text(safe(body[:TRANSCRIPT_CHARS], multiline=True))
            if len(body) > TRANSCRIPT_CHARS:
                text.append(f"\n… {len(body) - TRANSCRIPT_CHARS:,} more characters", style=style("compare--dim"))
        return text

    def _landings(self, title: str, rows: tuple[Landing, ...], which: str) -> Text:
        style = self.get_component_rich_style
        text = styled(f"{title}: ", style("compare--label"))
        if not rows:
            return text + styled("none", style("compare--dim"))
        for number, row in enumerate(rows):
            if number:
                text.append(", ")
            text.append_text(safe(row.node, width=50))
            reason = row.a if which == "a" else row.b if which == "b" else f"{row.a} / {row.b}"
            text.append(f" ({reason})", style=style("compare--dim"))
        return text
