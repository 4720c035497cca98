"""How long 10,000 walks take to open as the walk list, and the memory it takes: a folder of 10,000 recorded traces
(``WalkRecorder``) and one span file of 10,000 walks (``WalkRecorder(send_to=[telemetry.export_walk])``).

Run: .venv/bin/python bench/many_walks.py [--walks N] [--keep DIR]

It records N walks of the sample handbook (the lexical navigator, five topics) into a folder and a span file, then,
each in a fresh process, opens them as ``reasoning-explorer FOLDER`` / ``reasoning-explorer FILE`` do
(``explorer.cli.inputs.all_walks``: every walk listed from its header, the newest read whole to be shown) and prints
the time to open, the time to show another walk (read then, the first time), and the memory the opening allocates
(tracemalloc, on a second opening: its peak, and what the walk list keeps). It asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explorer.walks.walk_list import WalkList

ROOT = Path(__file__).resolve().parents[1]
HANDBOOK = ROOT / "sample_corpora" / "handbook.yaml"
TOPICS = ["refunds", "sign in", "taxes", "parental leave", "invoices"]


def opened(path: str) -> WalkList:
    """The walk list ``reasoning-explorer PATH`` opens on: every walk listed (from its header), the newest read
    whole, as it is shown."""
    from explorer.cli.inputs import all_walks
    from explorer.walks.walk_list import Walk, WalkList

    saved, _ = all_walks(path)
    walks = WalkList()
    for each in saved:
        walks.add(Walk(saved=each))
    walks.number(1).read()
    return walks


def measure(path: str) -> None:
    """In this (fresh) process: open ``path`` as the walk list, print one JSON line of figures."""
    from explorer.corpora import load_corpus

    load_corpus(HANDBOOK)  # the corpus, and every import the opening needs, held before the clock starts
    import explorer.walks.telemetry.span_walks  # noqa: F401

    start = time.perf_counter()
    walks = opened(path)
    seconds = time.perf_counter() - start
    start = time.perf_counter()
    walks.number(len(walks)).read()  # another walk shown from the chooser: read then, once
    another = time.perf_counter() - start
    tracemalloc.start()  # a second opening, traced (tracing slows it: the time above is the untraced one)
    del walks
    walks = opened(path)
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(json.dumps({"walks": len(walks), "seconds": round(seconds, 2), "another_s": round(another, 3),
                      "peak_mb": round(peak / 1e6, 1), "kept_mb": round(kept / 1e6, 1)}))


def record(folder: Path, spans: Path, count: int) -> None:
    from core import ReasoningRAGStrategy
    from explorer.corpora import load_corpus
    from explorer.navigators import resolve_navigator
    from explorer.recording import WalkRecorder
    from explorer.walks.telemetry import WalkTelemetry

    corpus = load_corpus(HANDBOOK)
    strategy = ReasoningRAGStrategy(corpus.index, resolve_navigator("lexical:default"), "lexical:default")
    telemetry = WalkTelemetry(file=spans)
    recorder = WalkRecorder(folder, corpus, send_to=[telemetry.export_walk], queue_size=count + 1, max_bytes=10**12)
    for number in range(count):
        recorder.retrieve(strategy, f"{TOPICS[number % 5]} question {number}")
    recorder.close(timeout=None)  # every walk written and sent, however long the backlog
    telemetry.close()
    if recorder.written != count:
        sys.exit(f"recorded {recorder.written} of {count} walks (dropped {recorder.dropped})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--walks", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="record into (or reuse) this folder instead of a temporary one")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args.measure)
        return
    with tempfile.TemporaryDirectory() as scratch:
        base = args.keep or Path(scratch)
        folder, spans = base / "walks", base / "walks.otlp.jsonl"
        if not (folder.is_dir() and spans.is_file()):
            started = time.perf_counter()
            folder.mkdir(parents=True, exist_ok=True)
            record(folder, spans, args.walks)
            print(f"recorded {args.walks:,} walks in {time.perf_counter() - started:.1f} s "
                  f"(folder {sum(p.stat().st_size for p in folder.iterdir()) / 1e6:.1f} MB, "
                  f"span file {spans.stat().st_size / 1e6:.1f} MB)")
        for what, path in (("folder of traces", folder), ("span file", spans)):
            done = subprocess.run([sys.executable, __file__, "--measure", str(path)], capture_output=True,
                                  text=True, cwd=ROOT)
            if done.returncode != 0:
                print(f"{what}: failed: {done.stderr.strip().splitlines()[-1:]}")
                continue
            figures = json.loads(done.stdout.splitlines()[-1])
            print(f"{what}: {figures['walks']:,} walks open in {figures['seconds']} s (another shown: "
                  f"{figures['another_s']} s); memory (Python allocations): peak {figures['peak_mb']} MB, kept by "
                  f"the walk list {figures['kept_mb']} MB")


if __name__ == "__main__":
    main()
