"""How often a miss's verdict names the map defect that caused it, and how often the audit finds the defect: the
figures of issue 46 point 6 (the README's verdicts table).

Run: .venv/bin/python bench/blame.py [--model MODEL] [--judge JUDGE] [--pageindex]

In each sample corpus (``sample_corpora/*.questions.yaml``), a defect is planted
in turn at every inner node, one at a time, and the questions whose walk was
offered that node are walked again (a walk never offered it is the same walk):

* (a) ``swapped``: its summary replaced by an unrelated node's (the node
  halfway round the corpus's order from it that is neither above, below nor
  beside it);
* (b) ``generic``: ``General information and related matters.``;
* (c) ``first-child``: its first child's summary, describing only that child.

A plant that changes nothing is not counted (in a corpus of titles alone, a swapped or first-child summary is
the empty one it replaces).

Per plant kind it prints the plants, the new misses (questions the walk landed
before the plant and misses after it), the share of them whose verdict names
the planted node (``map-hid`` or ``map-misled`` at it), and the share of plants
the audit ranks among the 5 weakest nodes of the corpus. Then the verdicts of
the sample sets' misses as they stand, and the flat search's hit@3 beside the
walk's. With ``--pageindex``, the audit of each PageIndex fixture of
``../shared/fixtures/pageindex`` (its weakest nodes, and the share of plants of
each kind it ranks among the 5 weakest). Targets: 85 % named, 80 % in the audit's
5 weakest. Deterministic: two runs print the same figures.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from core import CandidatesOffered, HierarchyIndex
from explorer.corpora import Corpus, load_corpus
from explorer.corpora.model import make_document
from explorer.corpora.questions import Question, load_questions
from explorer.navigators import resolve_navigator
from explorer.navigators.judge import DEFAULT_JUDGE, EmbeddingJudge, judge_for, preorder
from explorer.walk_settings import WalkSettings
from explorer.walks.audit import audit
from explorer.walks.evaluation import QuestionOutcome, evaluate
from explorer.walks.evaluation.blame import BlameKind
from explorer.walks.evaluation.outcome import judged

ROOT = Path(__file__).resolve().parents[1]
SETS = ("handbook", "regulation", "specification", "contract")
PAGEINDEX = ROOT.parent / "shared" / "fixtures" / "pageindex"
GENERIC = "General information and related matters."
WEAKEST = 5
NAMED_TARGET, AUDIT_TARGET = 0.85, 0.80


def planted(corpus: Corpus, node: str, summary: str) -> Corpus:
    """``corpus`` with ``node``'s summary replaced (in memory: the corpus file is never touched)."""
    index = corpus.index
    documents = []
    for document in index:
        node_id = str(document.metadata.get("hierarchyId", document.id))
        if node_id == node:
            parent = index.parent(node)
            own = {k: v for k, v in document.metadata.items() if not k.startswith(("hierarchy", "reasoning"))}
            document = make_document(node, source=str(document.metadata.get("hierarchySource", "")),
                                     parent=parent.id if parent is not None else None, title=corpus.title_of(node),
                                     summary=summary, content=document.content, metadata=own or None)
        documents.append(document)
    return dataclasses.replace(corpus, index=HierarchyIndex(documents))


def unrelated(index: HierarchyIndex, order: Sequence[str], node: str) -> str:
    """The node halfway round ``order`` from ``node`` that is neither above, below nor beside it."""
    at = order.index(node)
    near = set(index.path(node))
    parent = index.parent(node)
    siblings = set(index.child_ids(parent.id) if parent is not None else index.root_ids())
    for step in range(len(order)):
        other = order[(at + len(order) // 2 + step) % len(order)]
        if other not in near and other not in siblings and node not in index.path(other):
            return other
    return order[(at + len(order) // 2) % len(order)]


def plants(corpus: Corpus) -> dict[str, list[tuple[str, str]]]:
    """Per plant kind, each inner node with the summary planted at it."""
    index = corpus.index
    order = preorder(index)
    inner = [n for n in order if index.has_children(n)]
    kinds = {
        "swapped": [(n, corpus.summary_of(unrelated(index, order, n))) for n in inner],
        "generic": [(n, GENERIC) for n in inner],
        "first-child": [(n, corpus.summary_of(index.child_ids(n)[0])) for n in inner],
    }  # a plant that changes nothing (a summary swapped for the same, or for none where none is) is no defect
    return {kind: [(n, s) for n, s in planted_at if s.strip() != corpus.summary_of(n).strip()]
            for kind, planted_at in kinds.items()}


def offered(outcome: QuestionOutcome) -> set[str]:
    """Every node the walk was offered (its summary shown)."""
    history = outcome.history
    assert history is not None
    return {c.id for e in history.events if isinstance(e, CandidatesOffered) for c in e.candidates}


def share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / whole:.0%})" if whole else "-"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="semantic:hybrid")
    parser.add_argument("--judge", default=DEFAULT_JUDGE)
    parser.add_argument("--pageindex", action="store_true")
    args = parser.parse_args(argv)
    settings = WalkSettings("", args.model)
    navigator = resolve_navigator(args.model)
    started = time.perf_counter()
    totals: dict[str, Counter[str]] = {}
    standing: Counter[str] = Counter()
    walk_at_3 = flat_at_3 = asked = 0
    for name in SETS:
        questions = load_questions(ROOT / "sample_corpora" / f"{name}.questions.yaml")
        assert questions.corpus_path is not None
        corpus = load_corpus(questions.corpus_path)
        judge = judge_for(args.judge, corpus)
        before = [judged(o, judge, args.model)
                  for o in evaluate(corpus, questions.questions, settings, navigator=navigator)]
        standing.update(o.blame.kind.value for o in before if o.blame is not None)
        walk_at_3 += sum(o.hit_at_3 for o in before)
        flat_at_3 += sum(1 for o in before if o.flat is not None and o.flat <= 3)
        asked += len(before)
        shown = [offered(o) for o in before]
        for kind, planted_at in plants(corpus).items():
            count = totals.setdefault(kind, Counter())
            for node, summary in planted_at:
                changed = planted(corpus, node, summary)
                count["plants"] += 1
                if isinstance(judge, EmbeddingJudge):
                    weakest = [f.id for f in audit(EmbeddingJudge(changed, judge.embeddings), WEAKEST)]
                    count["audited"] += node in weakest
                again: list[Question] = [o.question for o, seen in zip(before, shown, strict=True)
                                         if o.hit and node in seen]
                if not again:
                    continue
                plant_judge = judge_for(args.judge, changed)
                for outcome in evaluate(changed, again, settings, navigator=navigator):
                    if outcome.hit:
                        continue
                    verdict = judged(outcome, plant_judge, args.model).blame
                    assert verdict is not None
                    count["misses"] += 1
                    count[verdict.kind.value] += 1
                    count["named"] += verdict.node == node and verdict.kind in (BlameKind.MAP_HID,
                                                                                 BlameKind.MAP_MISLED)
    print(f"Verdicts of planted map defects — navigator {args.model}, judge {args.judge}, 4 sample corpora "
          f"(targets: named {NAMED_TARGET:.0%}, audit {AUDIT_TARGET:.0%})")
    print(f"{'plant':<12} {'plants':>7} {'new misses':>11} {'named':>14} {'audit top 5':>14}  verdicts")
    all_misses = all_named = all_plants = all_audited = 0
    for kind, count in totals.items():
        verdicts = ", ".join(f"{k.value} {count[k.value]}" for k in BlameKind if count[k.value])
        print(f"{kind:<12} {count['plants']:>7} {count['misses']:>11} {share(count['named'], count['misses']):>14} "
              f"{share(count['audited'], count['plants']):>14}  {verdicts}")
        all_misses += count["misses"]
        all_named += count["named"]
        all_plants += count["plants"]
        all_audited += count["audited"]
    print(f"{'all':<12} {all_plants:>7} {all_misses:>11} {share(all_named, all_misses):>14} "
          f"{share(all_audited, all_plants):>14}")
    print(f"\nThe sample sets' misses as they stand ({sum(standing.values())}): "
          + ", ".join(f"{k.value} {standing[k.value]}" for k in BlameKind if standing[k.value]))
    print(f"hit@3: the walk {share(walk_at_3, asked)}, a flat search by the judge {share(flat_at_3, asked)}")
    if args.pageindex:
        pageindex(args.judge)
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


def pageindex(judge_name: str) -> None:
    """The audit of each PageIndex fixture, and the share of plants of each kind among its 5 weakest."""
    files = sorted(PAGEINDEX.glob("*_structure.json")) if PAGEINDEX.is_dir() else []
    if not files:
        print(f"\nNo PageIndex fixtures at {PAGEINDEX}")
        return
    print("\nPageIndex fixtures: plants the audit ranks among its 5 weakest")
    for path in files:
        corpus = load_corpus(path)
        judge = judge_for(judge_name, corpus)
        if not isinstance(judge, EmbeddingJudge):
            print("  the audit needs the embeddings judge")
            return
        started = time.perf_counter()
        weakest = audit(judge, 3)
        took = time.perf_counter() - started
        found: list[str] = []
        for kind, planted_at in plants(corpus).items():
            hit = sum(node in {f.id for f in audit(EmbeddingJudge(planted(corpus, node, s), judge.embeddings),
                                                    WEAKEST)} for node, s in planted_at)
            found.append(f"{kind} {share(hit, len(planted_at))}")
        print(f"  {path.name} ({len(corpus.index):,} nodes, audited in {took:.2f} s): {'; '.join(found)}")
        for fit in weakest:
            print(f"    {fit.id} {fit.fit:.3f} {fit.says}")


if __name__ == "__main__":
    run: Callable[[list[str]], int] = main
    sys.exit(run(sys.argv[1:]))
