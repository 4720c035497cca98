"""The cost/quality curve of the two walk policies: depth-first against best-first, at the same navigator and budget.

Run: .venv/bin/python bench/policies.py [--alpha A] [MODEL ...]   (default: lexical:default semantic:hybrid, alpha 0.5)

For each navigator, each policy and each visit budget (3, 5, 8, 15), it walks two groups of question sets with
``reasoning-explorer eval --budgets 3,5,8,15 --policy P --json`` (the same walks, the same checks) and prints, per
budget, summed over the group:

* hit@3: questions where an expected node is among the first three nodes of the result (a best-first walk's
  result is ranked by path score, a depth-first walk's is in landing order);
* landed: nodes landed per question, on average; precision: expected nodes landed / nodes landed;
* calls: navigator calls per question, on average.

The groups: the four sample sets (``sample_corpora/*.questions.yaml``, 133 questions, the ones the navigators'
rules were tuned on, under depth-first) and the untuned sets (``bench/untuned/``, written before any tuning). Every
walk is deterministic, so two runs print the same figures. It asserts nothing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXPLORER = Path(sys.executable).parent / "reasoning-explorer"
BUDGETS = (3, 5, 8, 15)
GROUPS = {
    "sample sets (tuned)": sorted((ROOT / "sample_corpora").glob("*.questions.yaml")),
    "untuned sets": sorted((ROOT / "bench" / "untuned").glob("*.questions.yaml")),
}
POLICIES = ("depth-first", "best-first")


def swept(questions: Path, model: str, policy: str) -> dict[int, dict[str, float]]:
    """Per budget, the evaluation's summary of ``questions`` walked by ``model`` under ``policy``."""
    done = subprocess.run([str(EXPLORER), "eval", str(questions), "--navigator", model, "--policy", policy,
                           "--budgets", ",".join(map(str, BUDGETS)), "--json"],
                          capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode not in (0, 1):  # 1: some question missed
        raise SystemExit(f"{questions.name} {model} {policy}: {done.stderr.strip()}")
    return {row["budget"]: row["summary"] for row in json.loads(done.stdout)["sweep"]["rows"]}


def main(models: list[str], alpha: str | None = None) -> None:
    policies = {"depth-first": "depth-first", "best-first": f"best-first@alpha={alpha}" if alpha else "best-first"}
    for model in models:
        for group, sets in GROUPS.items():
            print(f"\n{model} · {group} ({', '.join(s.name.split('.')[0] for s in sets)})")
            print(f"{'budget':>6}  {'policy':<11}  {'hit@3':>9}  {'landed':>6}  {'precision':>9}  {'calls':>5}")
            figures = {(policy, budget): [0, 0, 0.0, 0.0, 0.0] for policy in POLICIES for budget in BUDGETS}
            for questions in sets:
                for policy in POLICIES:
                    for budget, summary in swept(questions, model, policies[policy]).items():
                        n = summary["questions"]
                        total = figures[(policy, budget)]
                        total[0] += summary["hits_at_3"]
                        total[1] += n
                        total[2] += summary["mean_landed"] * n
                        total[3] += summary["precision"] * summary["mean_landed"] * n  # expected nodes landed
                        total[4] += summary["mean_navigator_calls"] * n
            for budget in BUDGETS:
                for policy in POLICIES:
                    hits, n, landed, right, calls = figures[(policy, budget)]
                    precision = right / landed if landed else 0.0
                    print(f"{budget:>6}  {policy:<11}  {f'{hits}/{n}':>9}  {landed / n:>6.2f}  {precision:>9.2f}  "
                          f"{calls / n:>5.1f}")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    given_alpha = None
    if arguments[:1] == ["--alpha"]:
        given_alpha, arguments = arguments[1], arguments[2:]
    main(arguments or ["lexical:default", "semantic:hybrid"], given_alpha)
