"""A corpus folder with everything a check set is made of, as real files: the handbook beside its own set, a small
set, a case kept with K in a set of its own and one in the own set, and two runs of the small set kept as ctrl+s
keeps them (a baseline walked with ``lexical:default``, then a candidate walked with ``semantic:default``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from explorer.corpora import load_corpus
from explorer.corpora.questions import keep_question, load_questions
from explorer.navigators import resolve_navigator
from explorer.walk_settings import WalkSettings
from explorer.walks.evaluation import evaluate, keep_run
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = SAMPLES
SMALL_IDS = ("money-back", "mistyped-too-often", "saml-identity-providers", "annual-refund-day-75",
             "removed-seats-refund")
"""The small set: the baseline (lexical) hits saml-identity-providers and removed-seats-refund; the candidate
(semantic) misses only mistyped-too-often."""
KEPT_QUERY = "How long do refunds take to arrive?"
"""A case kept with K in cases.questions.yaml (its id: how-long-do-refunds-take-to-arrive)."""
OWN_KEPT_QUERY = "How long until I get my money back?"
"""A case kept with K in the own set: the words of money-back, kept again (id how-long-until-i-get-my-money-back)."""
TRIAL = "What happens when the 21-day free trial ends?"
"""The query of trial-ends, a question of the own set."""
CHECK_IDS = ["how-long-until-i-get-my-money-back", "how-long-do-refunds-take-to-arrive", "mistyped-too-often",
             "annual-refund-day-75"]
"""The check set of the folder for a walk whose query is no question: the cases kept with K (the own set's first),
then the candidate's
miss and the flips against the baseline (money-back is the words of a case already in)."""


def small_set_text(corpus: str) -> str:
    own = {q.id: q for q in load_questions(SAMPLES / "handbook.questions.yaml").questions}
    return f"corpus: {corpus}\nquestions:\n" + "".join(
        f"  - id: {i}\n    query: \"{own[i].query}\"\n    expect: [{', '.join(own[i].expect)}]\n" for i in SMALL_IDS)


def check_set_folder(folder: Path) -> Path:
    """The folder made in ``folder``; returns the corpus's path."""
    corpus_path = folder / "handbook.yaml"
    shutil.copy(SAMPLES / "handbook.yaml", corpus_path)
    shutil.copy(SAMPLES / "handbook.questions.yaml", folder / "handbook.questions.yaml")
    small = folder / "small.questions.yaml"
    small.write_text(small_set_text("handbook.yaml"), encoding="utf-8")
    corpus = load_corpus(corpus_path)
    keep_question(folder / "cases.questions.yaml", corpus, KEPT_QUERY, ["refund-delivery"], day="2026-12-05")
    keep_question(folder / "handbook.questions.yaml", corpus, OWN_KEPT_QUERY, ["refund-delivery"], day="2026-12-05")
    questions = load_questions(small).questions
    for name, model in (("small-baseline", "lexical:default"), ("small-candidate", "semantic:default")):
        settings = WalkSettings("", model)
        path = keep_run(folder / f"{name}.run.json", small, corpus, settings,
                        evaluate(corpus, questions, settings, navigator=resolve_navigator(model)))
        if name == "small-baseline":
            stamp = path.stat().st_mtime - 60  # kept a minute before the candidate, in the same second's "created"
            os.utime(path, (stamp, stamp))
    return corpus_path
