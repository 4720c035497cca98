"""What ``M`` and ``--map`` cost on a large corpus: a map variant kept (``keep_edit``: read the variant there, write
it through the gate, read it back) and applied to a copy of the corpus (``apply_map``: the index built again with the
changed nodes' documents), on the synthetic PageIndex corpus of ``bench/tui_large.py`` (100,000 nodes by default).
``M`` does both on the screen's thread when a person saves, so the figure is the pause a save makes.

Run: .venv/bin/python bench/map_variant.py [NODES]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tui_large import synthetic_pageindex

from explorer.corpora import load_corpus
from explorer.corpora.map_variant import apply_map, keep_edit, map_path_for, suggested_summary, with_map


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 100_000
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"synthetic-{count}.json"
        path.write_text(json.dumps(synthetic_pageindex(count)), encoding="utf-8")
        corpus = load_corpus(path)
        ids = list(corpus.index.ids())
        inner = next(node for node in ids if corpus.index.has_children(node))
        started = time.perf_counter()
        suggestion = suggested_summary(corpus, inner)
        suggested = time.perf_counter() - started
        variant_path = map_path_for(path)
        started = time.perf_counter()
        variant = keep_edit(corpus, variant_path, inner, corpus.title_of(inner), suggestion or "A summary.")
        kept = time.perf_counter() - started
        started = time.perf_counter()
        apply_map(corpus, variant)
        applied = time.perf_counter() - started
        for node in ids[1:50]:  # a variant of 50 nodes, read and applied as --map does
            keep_edit(corpus, variant_path, node, corpus.title_of(node), f"Summary of {node}.")
        started = time.perf_counter()
        with_map(corpus, variant_path)
        loaded = time.perf_counter() - started
    print(f"map variant on {len(corpus.index):,} nodes: M's save {kept + applied:.2f} s (kept {kept:.3f} s, applied "
          f"{applied:.2f} s); its suggestion {suggested:.3f} s; --map with 50 nodes {loaded:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
