"""How long the evaluation screen takes to judge a run's misses: each sample question set walked with
``lexical:default``, then every outcome judged as the screen's worker judges them (``VerdictRun``: the misses'
verdicts and every question's flat rank, by the bundled embeddings, one judge per screen).

Run: .venv/bin/python bench/screen_verdicts.py

Prints, per set: its questions and misses, the time to the first verdict (the judge made: the corpus's tables and
the audit's fits, read once per screen), the time for all of them, and the mean per question after the first; the
embeddings themselves load once per process, before any set (not counted).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.corpora import load_corpus  # noqa: E402
from explorer.corpora.questions import load_questions  # noqa: E402
from explorer.navigators.embeddings import bundled_embeddings  # noqa: E402
from explorer.walk_settings import WalkSettings  # noqa: E402
from explorer.walks.evaluation import QuestionOutcome, evaluate  # noqa: E402
from explorer.walks.evaluation.verdict_run import OneJudge, VerdictRun  # noqa: E402

MODEL = "lexical:default"


def main() -> int:
    bundled_embeddings().text("warm")  # once per process: not a screen's time
    print(f"{'question set':<32} {'questions':>9} {'misses':>6} {'first s':>8} {'all s':>7} {'ms/question':>11}")
    for path in sorted((ROOT / "sample_corpora").glob("*.questions.yaml")):
        questions = load_questions(path)
        if questions.corpus_path is None:
            continue
        corpus = load_corpus(questions.corpus_path)
        outcomes = evaluate(corpus, questions.questions, WalkSettings("", MODEL))
        times: list[float] = []

        def told(number: int, outcome: QuestionOutcome, times: list[float] = times) -> None:
            times.append(time.perf_counter())

        run = VerdictRun(OneJudge(corpus), MODEL, told)
        started = time.perf_counter()
        for number, outcome in enumerate(outcomes):
            run.offer(number, outcome)
        run.drain()
        if not times:
            print(f"{path.name:<32} {len(outcomes):>9} {0:>6}  (no miss: nothing judged)")
            continue
        first, whole = times[0] - started, times[-1] - started
        rest = (whole - first) / max(1, len(times) - 1) * 1000
        misses = sum(not o.hit for o in outcomes)
        print(f"{path.name:<32} {len(outcomes):>9} {misses:>6} {first:>8.2f} {whole:>7.2f} {rest:>11.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
