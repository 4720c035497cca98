"""The cost/quality curve of the two walk policies: depth-first against best-first, at the same navigator and budget.

Run: .venv/bin/python bench/policies.py [--alpha A] [MODEL ...]   (default: lexical:default semantic:hybrid, alpha 0.5)

For each navigator, each policy and each visit budget (3, 5, 8, 15), it walks two groups of question sets with the
product's own curve (``explorer.walks.evaluation.policy_curve``, what ``reasoning-explorer eval --budgets 3,5,8,15
--policy depth-first --compare-policy best-first`` walks: the same walks, the same checks) and prints, per budget,
summed over the group (``PolicyPoint.plus``, printed by ``curve_lines``):

* hit@3: questions where an expected node is among the first three nodes of the result (a best-first walk's
  result is ranked by path score, a depth-first walk's is in landing order);
* landed: nodes landed per question, on average; precision: expected nodes landed / nodes landed;
* calls: navigator calls per question, on average; tokens: the tokens of live calls per question (0 offline).

The groups: the four sample sets (``sample_corpora/*.questions.yaml``, 133 questions, the ones the navigators'
rules were tuned on, under depth-first) and the untuned sets (``bench/untuned/``, written before any tuning). Every
walk is deterministic, so two runs print the same figures. It asserts nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

from core import Policy
from core.policy import DEFAULT_ALPHA
from explorer.corpora import load_corpus
from explorer.corpora.questions import load_questions
from explorer.navigators import resolve_navigator
from explorer.walk_settings import WalkSettings
from explorer.walks.evaluation import PolicyPoint, curve_lines, policy_curve

ROOT = Path(__file__).resolve().parent.parent
BUDGETS = (3, 5, 8, 15)
GROUPS = {
    "sample sets (tuned)": sorted((ROOT / "sample_corpora").glob("*.questions.yaml")),
    "untuned sets": sorted((ROOT / "bench" / "untuned").glob("*.questions.yaml")),
}


def group_points(sets: list[Path], model: str, alpha: float) -> list[PolicyPoint]:
    """Each budget and policy's figures, summed over ``sets``."""
    totals: dict[tuple[int, str], PolicyPoint] = {}
    for path in sets:
        questions = load_questions(path)
        assert questions.corpus_path is not None, path
        curve = policy_curve(load_corpus(questions.corpus_path), questions.questions, WalkSettings("", model),
                             [(Policy.DEPTH_FIRST, DEFAULT_ALPHA), (Policy.BEST_FIRST, alpha)], BUDGETS,
                             navigator=resolve_navigator(model))
        for point in curve.points():
            key = (point.budget, point.policy)
            totals[key] = totals[key].plus(point) if key in totals else point
    return list(totals.values())


def main(models: list[str], alpha: float = DEFAULT_ALPHA) -> None:
    for model in models:
        for group, sets in GROUPS.items():
            print(f"\n{model} · {group} ({', '.join(s.name.split('.')[0] for s in sets)})")
            print("\n".join(curve_lines(group_points(sets, model, alpha))))


if __name__ == "__main__":
    arguments = sys.argv[1:]
    given_alpha = DEFAULT_ALPHA
    if arguments[:1] == ["--alpha"]:
        given_alpha, arguments = float(arguments[1]), arguments[2:]
    main(arguments or ["lexical:default", "semantic:hybrid"], given_alpha)
