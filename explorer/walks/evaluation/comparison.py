"""Two navigators over the same question set, compared question by question: where they differ and how
(:class:`Change`, :class:`Difference`), as ``eval --compare`` prints it and its JSON (:class:`EvalComparison`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from ...navigators.prompt_variants import model_label
from ...safe_text import visible
from .outcome import QuestionOutcome, outcome_to_json
from .summary import EvalSummary, summary_to_json

__all__ = ["Change", "Difference", "EvalComparison", "Side", "compare_outcomes", "comparison_lines", "differs"]


class Side(StrEnum):
    """Which of two navigators over the same set: A, the one evaluated; B, the one compared with it."""

    A = "A"
    B = "B"


class Change(StrEnum):
    """How a question fared with navigator B against navigator A."""

    B_HITS = "only B hits"
    """B landed an expected node; A did not."""
    A_HITS = "only A hits"
    """A landed an expected node; B did not."""
    LANDED_DIFFERENTLY = "landed differently"
    """Both hit, or both missed, but they landed different nodes."""


@dataclass(frozen=True)
class Difference:
    """One question where two navigators differ."""

    number: int
    """0-based, in question order."""
    a: QuestionOutcome
    b: QuestionOutcome

    @property
    def change(self) -> Change:
        if self.a.hit != self.b.hit:
            return Change.B_HITS if self.b.hit else Change.A_HITS
        return Change.LANDED_DIFFERENTLY


def differs(a: QuestionOutcome, b: QuestionOutcome) -> bool:
    """Whether two walks of one question differ in what they landed (a hit that changed always does)."""
    return a.hit != b.hit or set(a.landed) != set(b.landed)


def compare_outcomes(a: Sequence[QuestionOutcome | None], b: Sequence[QuestionOutcome | None]) -> list[Difference]:
    """The questions (walked by both) where navigator A and navigator B landed differently, in question order."""
    return [Difference(n, x, y) for n, (x, y) in enumerate(zip(a, b, strict=True))
            if x is not None and y is not None and differs(x, y)]


def comparison_lines(a_model: str, b_model: str, a: EvalSummary, b: EvalSummary,
                     differences: Sequence[Difference]) -> list[str]:
    """``eval --compare``: both hit rates and the questions where the navigators differ, as plain lines; each side
    named by its label (``local:smollm2 with prompt v2``), its whole model id (the variant's files) in the detail
    after."""
    detail = [visible(f"{name}: {model}") for name, model in (("A", a_model), ("B", b_model))
              if model_label(model) != model]
    lines = [
        visible(f"Compared: A {model_label(a_model)} · B {model_label(b_model)}"),
        f"  hit rate           A {a.hit_rate:.0%} ({a.hits}/{a.questions}) · "
        f"B {b.hit_rate:.0%} ({b.hits}/{b.questions})",
        f"  branch-entry rate  A {a.branch_rate:.0%} · B {b.branch_rate:.0%}",
        f"  valid answers      A {a.valid_answer_rate:.0%} · B {b.valid_answer_rate:.0%}",
    ]
    if not differences:
        lines.append("The two navigators landed the same nodes on every question.")
        return lines + detail
    lines.append(f"{len(differences)} question(s) where they differ (✓ hit, ✗ miss; what each landed):")
    width = max(len(visible(d.a.question.id)) for d in differences)
    for d in differences:
        lines.append(f"  {visible(d.a.question.id):<{width}}  {d.change.value:<18}  "
                     f"A {_landed_briefly(d.a)} · B {_landed_briefly(d.b)}")
    return lines + detail


def _landed_briefly(outcome: QuestionOutcome, shown: int = 3) -> str:
    mark = "✓" if outcome.hit else "✗"
    if not outcome.landed:
        return f"{mark} nothing"
    more = len(outcome.landed) - shown
    return visible(f"{mark} {', '.join(outcome.landed[:shown])}" + (f" +{more} more" if more > 0 else ""))


@dataclass(frozen=True)
class EvalComparison:
    """Navigator A and navigator B over the same question set."""

    a_model: str
    b_model: str
    a: tuple[QuestionOutcome, ...]
    b: tuple[QuestionOutcome, ...]
    a_summary: EvalSummary
    b_summary: EvalSummary

    @property
    def differences(self) -> list[Difference]:
        return compare_outcomes(self.a, self.b)

    def lines(self) -> list[str]:
        return comparison_lines(self.a_model, self.b_model, self.a_summary, self.b_summary, self.differences)

    def to_json(self) -> dict[str, object]:
        """What ``eval --compare --json`` adds: B's results and rates, and the questions where A and B differ."""
        b = self.b_summary
        return {
            "navigator": self.b_model,
            "results": [outcome_to_json(o) for o in self.b],
            "summary": summary_to_json(b),
            "hit_rates": {"a": self.a_summary.hit_rate, "b": b.hit_rate},
            "hit_at_3_rates": {"a": self.a_summary.hit_at_3_rate, "b": b.hit_at_3_rate},
            "differ": [{"id": d.a.question.id, "change": d.change.value, "a_hit": d.a.hit, "b_hit": d.b.hit,
                        "a_landed": list(d.a.landed), "b_landed": list(d.b.landed)} for d in self.differences],
        }
