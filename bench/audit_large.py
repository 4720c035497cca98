"""How long ``reasoning-explorer audit`` takes on a large corpus: the synthetic PageIndex corpus of
``bench/tui_large.py`` (100,000 nodes by default), audited with the bundled embeddings.

Run: .venv/bin/python bench/audit_large.py [NODES]

Prints the time to load the corpus, to read every node's texts into the judge's tables (tokenizing titles,
summaries and content: the bulk of it), and to rank the nodes, against the issue's figure: the audit (tables and
ranking) in at most 10 s. Beside each time, the CPU the process spent on it (all its threads: the tokenizer and
BLAS use both cores): on a machine whose cores are busy with other work, the time grows and the CPU does not.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tui_large import synthetic_pageindex

from explorer.corpora import load_corpus
from explorer.navigators.judge import EmbeddingJudge, judge_for
from explorer.walks.audit import audit

LIMIT_S = 10.0


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 100_000
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"synthetic-{count}.json"
        path.write_text(json.dumps(synthetic_pageindex(count)), encoding="utf-8")
        started = time.perf_counter()
        corpus = load_corpus(path)
        loaded = time.perf_counter() - started
    judge = judge_for("semantic:default", corpus)
    assert isinstance(judge, EmbeddingJudge)
    judge.embeddings.text("warm")  # the model loads once per process: not the audit's time
    started, cpu = time.perf_counter(), time.process_time()
    judge.rows()
    tables, tables_cpu = time.perf_counter() - started, time.process_time() - cpu
    started, cpu = time.perf_counter(), time.process_time()
    weakest = audit(judge, 10)
    ranked, ranked_cpu = time.perf_counter() - started, time.process_time() - cpu
    total = tables + ranked
    verdict = "within" if total <= LIMIT_S else "OVER"
    print(f"audit of {len(corpus.index):,} nodes: {total:.1f} s ({verdict} the {LIMIT_S:.0f} s figure) — the judge's "
          f"tables {tables:.1f} s, the ranking {ranked:.1f} s; loading the corpus {loaded:.1f} s before it")
    print(f"  CPU: {tables_cpu + ranked_cpu:.1f} s (tables {tables_cpu:.1f} s, ranking {ranked_cpu:.1f} s); load "
          f"average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for fit in weakest[:3]:
        print(f"  {fit.id} {fit.fit:.4f} {fit.says}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
