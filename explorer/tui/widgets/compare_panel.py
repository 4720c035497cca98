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
from ...walks.describe import calls_words, count_of
from ...walks.state import Cost

PROMPTS_KEY = "O"
"""The key that unfolds (and folds again) the prompts each walk sent where the two part (explorer.tui.keymap)."""
TRANSCRIPT_CHARS = 4_000
"""Characters of each transcript entry shown side by side; the Transcript tab has them all."""


class ComparePanel(Static):
    """Shown in place of the step panel while two walks are compared."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"compare--a", "compare--b", "compare--label", "compare--dim"}

    def show(self, comparison: Comparison, *, prompts: bool = False) -> None:
        """The comparison: first what each walk landed and cost, then where they part (each side's answer and
        why); with ``prompts``, what each was offered and sent there (system, user), folded otherwise."""
        style = self.get_component_rich_style
        parts: list[RenderableType] = []
        head = styled("Comparing ", style("compare--label"))
        head.append_text(safe("A = " + comparison.a_name, style("compare--a"), width=90))
        head.append("  with  ")
        head.append_text(safe("B = " + comparison.b_name, style("compare--b"), width=90))
        parts.append(head)
        if comparison.landing:  # which walk landed the expected node, in words, before the figures
            parts.append(styled("Expected: ", style("compare--label")) + safe(comparison.landing, "bold", width=300))
        for note in comparison.notes:
            parts.append(styled("note: ", style("compare--dim")) + safe(note, width=200))
        said = {walk: (says, flat) for walk, says, flat in comparison.verdicts}
        for name, landed, totals, which in (("A", comparison.only_a + comparison.both, comparison.a_totals,
                                             "compare--a"),
                                            ("B", comparison.only_b + comparison.both, comparison.b_totals,
                                             "compare--b")):
            parts.append(self._walk(name, landed, totals, which))
            if name in said:  # the side missed the expected node: whose fault it was, and the flat search's rank
                says, flat = said[name]
                verdict = styled(f"{name} verdict: ", style(which)) + safe(says, width=400)
                if flat:
                    verdict.append(" · ")
                    verdict.append_text(safe(flat, style("compare--dim"), width=200))
                parts.append(verdict)
        parts.append(self._landings("Landed in both", comparison.both, "both"))
        divergence = comparison.divergence
        if divergence is None:
            parts.append(styled("Same decisions: the two walks chose alike at every offer.", "bold"))
        else:
            where = "the roots" if divergence.node is None else divergence.node
            line = styled(f"First divergence: decision {divergence.number}, at ", style("compare--label"))
            line.append_text(safe(where, width=60))
            line.append(f" — {divergence.kind.value}")
            parts.append(line)
            parts.append(self._answer("A", divergence.a, "compare--a"))
            parts.append(self._answer("B", divergence.b, "compare--b"))
            if prompts:
                table = Table(expand=True, show_lines=True, pad_edge=False)
                table.add_column(styled("A", style("compare--a")), ratio=1, overflow="fold")
                table.add_column(styled("B", style("compare--b")), ratio=1, overflow="fold")
                table.add_row(self._side(divergence.a), self._side(divergence.b))
                parts.append(table)
                parts.append(Text(f"{PROMPTS_KEY} folds the prompts again.", style=style("compare--dim")))
            else:
                parts.append(Text(f"Prompts folded: {PROMPTS_KEY} shows what each walk was offered and sent there "
                                  "(system, user).", style=style("compare--dim")))
        parts.append(Text("Tree: A only · B only · = both · ⑂ where they part.  D ends the comparison.",
                          style=style("compare--dim")))
        self.update(Group(*parts))

    def _walk(self, name: str, landed: tuple[Landing, ...], cost: Cost, which: str) -> Text:
        """``A landed invoices (navigator_stopped)``, then what the walk cost: visits, calls, tokens, characters."""
        style = self.get_component_rich_style
        text = styled(f"{name} landed ", style(which))
        if not landed:
            text.append("nothing", style=style("compare--dim"))
        for number, row in enumerate(landed):
            if number:
                text.append(", ")
            text.append_text(safe(row.node, width=50))
            text.append(f" ({row.a if name == 'A' else row.b})", style=style("compare--dim"))
        tokens = (f"{cost.prompt_tokens:,} prompt + {cost.completion_tokens:,} completion tokens"
                  if cost.prompt_tokens or cost.completion_tokens else "no tokens")
        text.append(f"\n  cost {count_of(cost.visits, 'visit')} · calls {calls_words(cost, '')} · {tokens} · "
                    f"{cost.chars:,} characters shipped", style=style("compare--dim"))
        return text

    def _answer(self, name: str, decision: Decision | None, which: str) -> Text:
        """One walk's answer where the walks part, and why (its prompts are under :data:`PROMPTS_KEY`)."""
        style = self.get_component_rich_style
        text = styled(f"  {name} ", style(which))
        if decision is None:
            text.append("had ended: no decision here", style=style("compare--dim"))
        else:
            text.append_text(self._choice(decision, why=" — why ", width=300))
        return text

    def _choice(self, decision: Decision, *, why: str, width: int) -> Text:
        """What ``decision``'s navigator answered: the ids chosen (or forced) and the rationale after ``why``, the
        error of a failure, or ``no answer yet``; the rationale or error cut at ``width`` characters."""
        style = self.get_component_rich_style
        answer = decision.answer
        text = Text()
        if isinstance(answer, NavigatorChose):
            text.append("⚑ forced " if decision.forced else "chose ", style=style("compare--label"))
            text.append_text(Text(", ").join(safe(i, width=40) for i in answer.selected) or Text("nothing"))
            if answer.rationale:
                text.append(why, style=style("compare--label"))
                text.append_text(safe(answer.rationale, width=width))
        elif isinstance(answer, NavigatorFailed):
            text.append("failed ", style=style("compare--label"))
            text.append_text(safe(answer.error, width=width))
        else:
            text.append("no answer yet", style=style("compare--dim"))
        return text

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
        text.append_text(self._choice(decision, why="\nwhy ", width=600))
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
