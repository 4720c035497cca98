"""How well each shipped offline navigator answers the four sample question sets: the README's navigator table.

Run: .venv/bin/python bench/navigator_quality.py [--markdown] [MODEL ...]

For every navigator (default: every shipped offline variant) and every sample
set (``sample_corpora/*.questions.yaml``), it walks each question as
``reasoning-explorer eval`` does (default budget 15, depth limit 6) and prints:

* hit: questions where an expected node landed at all;
* hit@3: where one is among the first three nodes landed, in the order the
  walk landed them (hit@1 too, in the totals);
* landed: nodes landed per question, on average;
* precision: expected nodes landed / nodes landed.

Then the totals over the 133 questions, and hit@3 on the questions that share
no content word with their expected nodes' titles and summaries (the
questions reasoning retrieval exists for). It asserts nothing: the figures
are to be read, and copied into the README with ``--markdown``. Every walk is
deterministic, so two runs print the same figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

from explorer.corpora import load_corpus
from explorer.corpora.questions import Question, load_questions
from explorer.corpora.validate import stats
from explorer.navigators import resolve_navigator
from explorer.navigators.text_terms import terms
from explorer.walk_settings import WalkSettings
from explorer.walks.evaluation import EvalSummary, QuestionOutcome, evaluate, summarize

ROOT = Path(__file__).resolve().parents[1]
SETS = ("handbook", "regulation", "specification", "contract")
MODELS = ("lexical:default", "lexical:strict", "lexical:wide", "semantic:default", "semantic:hybrid", "semantic:wide")


def paraphrased(question: Question, corpus_terms: dict[str, set[str]]) -> bool:
    """Whether the question shares no content word with the title and summary of any node it expects."""
    asked = set(terms(question.query))
    return not any(asked & corpus_terms.get(node, set()) for node in question.expect)


def cell(summary: EvalSummary) -> str:
    precision = "-" if summary.precision is None else f"{summary.precision:.0%}"
    return (f"{summary.hits}/{summary.questions} · {summary.hits_at_3}/{summary.questions} · "
            f"{summary.mean_landed:.1f} · {precision}")


def main(argv: list[str]) -> int:
    markdown = "--markdown" in argv
    models = [a for a in argv if not a.startswith("--")] or list(MODELS)
    loaded = []
    for name in SETS:
        questions = load_questions(ROOT / "sample_corpora" / f"{name}.questions.yaml")
        assert questions.corpus_path is not None
        corpus = load_corpus(questions.corpus_path)
        words = {node: set(terms(f"{corpus.title_of(node)} {corpus.summary_of(node)}")) for node in corpus.index.ids()}
        loaded.append((name, questions, corpus, words))
    rows = []
    for model in models:
        navigator = resolve_navigator(model)
        cells, everything, hard = [], [], []
        for _name, questions, corpus, words in loaded:
            outcomes: list[QuestionOutcome] = evaluate(corpus, questions.questions, WalkSettings("", model),
                                                       navigator=navigator)
            summary = summarize(outcomes, stats(corpus))
            cells.append(cell(summary))
            everything.extend(outcomes)
            hard.extend(o for o in outcomes if paraphrased(o.question, words))
        total = summarize(everything, stats(loaded[0][2]))
        hard_at_3 = sum(o.hit_at_3 for o in hard)
        precision = "-" if total.precision is None else f"{total.precision:.1%}"
        rows.append((model, cells, f"**{total.hits}/{total.questions} ({total.hit_rate:.0%}) · "
                                   f"{total.hits_at_3}/{total.questions} ({total.hit_at_3_rate:.0%}) · "
                                   f"{total.mean_landed:.2f} · {precision}**",
                     f"{hard_at_3}/{len(hard)} ({hard_at_3 / len(hard):.0%})" if hard else "-",
                     f"hit@1 {total.hits_at_1}/{total.questions}"))
    if markdown:
        print("| navigator | " + " | ".join(SETS) + " | **all** | hit@3, paraphrased |")
        print("| --- |" + " --- |" * (len(SETS) + 2))
        for model, cells, total_cell, hard_cell, _ in rows:
            print(f"| `{model}` | " + " | ".join(cells) + f" | {total_cell} | {hard_cell} |")
        print("\n(each cell: hit · hit@3 · nodes landed per question · precision)")
        return 0
    print("each cell: hit · hit@3 · nodes landed per question · precision (budget 15, depth limit 6)")
    for model, cells, total_cell, hard_cell, at_1 in rows:
        print(f"\n{model}")
        for name, text in zip(SETS, cells, strict=True):
            print(f"  {name:<14} {text}")
        print(f"  {'all':<14} {total_cell.strip('*')} · {at_1}")
        print(f"  {'paraphrased':<14} hit@3 {hard_cell}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
