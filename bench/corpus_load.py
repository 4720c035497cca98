"""Benchmark of corpus loading: synthetic corpora in every format, each loaded in a fresh process.

Run: .venv/bin/python bench/corpus_load.py [--nodes N] [--million M] [--only NAME ...] [--repeat R]

Generates, in a temporary folder, a tree of ``--nodes`` nodes (default 100,000;
fan-out 10, every node with a title, a one-sentence summary and a paragraph of
content) as a YAML corpus, as PageIndex JSON and as a Markdown folder (ten
folders of ten subfolders of files whose headings hold the nodes), and a
PageIndex JSON of ``--million`` nodes (default 1,000,000). Each is loaded with
``load_corpus`` in a child process of its own, so one load's memory does not
flatter or burden the next; the figure is the best of ``--repeat`` loads
(default 1) and the child's peak resident memory (the corpora are written by
another child, so the parent stays small: Linux carries a parent's peak
into the children it starts). Prints each figure with its
target (issue 12) and whether it is met, the CPU time of the load (on a busy
machine the wall time also counts other processes' turns) and the child's peak
resident memory. It asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORDS = tuple(
    "billing refund invoice account security privacy network storage backup export audit policy leave "
    "travel expense device license contract renewal support incident outage latency quota region".split()
)
FANOUT = 10


@dataclass(frozen=True)
class Case:
    name: str
    what: str
    target: float
    """Seconds."""


def node_texts(i: int, rng: random.Random) -> tuple[str, str, str]:
    a, b, c, d = rng.sample(WORDS, 4)
    title = f"Section {i}: {a} {b}"
    summary = f"How {a} relates to {c} and {d}."
    content = (
        f"How {a} relates to {c} and {d}. Section {i} explains the {b} rules in plain words, "
        f"with the {c} exceptions that matter and what to do about {d}."
    )
    return title, summary, content


def parents(count: int) -> Iterator[int | None]:
    """The parent of each node of a complete FANOUT-ary forest with FANOUT roots, in id order."""
    for i in range(count):
        yield None if i < FANOUT else (i - FANOUT) // FANOUT


def write_yaml(path: Path, count: int) -> None:
    rng = random.Random(7)
    children: dict[int, list[int]] = {}
    for i, parent in enumerate(parents(count)):
        children.setdefault(-1 if parent is None else parent, []).append(i)
    texts = [node_texts(i, rng) for i in range(count)]
    with path.open("w", encoding="utf-8") as out:
        out.write("source: synthetic\ntitle: Synthetic corpus\nnodes:\n")
        stack: list[tuple[int, int]] = [(i, 1) for i in reversed(children[-1])]
        while stack:  # depth first, a node before its children, in order
            i, depth = stack.pop()
            pad = "    " * depth
            title, summary, content = texts[i]
            out.write(f"{pad[:-2]}- id: n{i}\n{pad}title: '{title}'\n{pad}summary: {summary}\n"
                      f"{pad}content: {content}\n{pad}metadata: {{rank: {i % 7}}}\n")
            kids = children.get(i)
            if kids:
                out.write(f"{pad}children:\n")
                stack.extend((k, depth + 1) for k in reversed(kids))


def pageindex_tree(count: int) -> dict[str, object]:
    rng = random.Random(7)
    nodes: list[dict[str, object]] = []
    roots: list[dict[str, object]] = []
    for i, parent in enumerate(parents(count)):
        title, summary, content = node_texts(i, rng)
        node: dict[str, object] = {"title": title, "node_id": f"{i:07d}", "start_index": i, "end_index": i + 1,
                                   "summary": summary, "text": content}
        nodes.append(node)
        if parent is None:
            roots.append(node)
        else:
            nodes[parent].setdefault("nodes", []).append(node)  # type: ignore[union-attr]
    return {"doc_name": f"synthetic-{count}", "structure": roots}


def write_json(path: Path, count: int) -> None:
    path.write_text(json.dumps(pageindex_tree(count)), encoding="utf-8")


def write_markdown(folder: Path, count: int) -> None:
    """Ten folders of ten subfolders of files; each file a level-1 heading (lent to the file's node) over
    level-2 headings over level-3 ones, so the nodes number about ``count``."""
    rng = random.Random(7)
    files = 1000
    per_file = max(1, count // files - 1)  # every folder and subfolder is a node too: about 1 per file
    made = 0
    for f in range(files):
        sub = folder / f"part-{f // 100:02d}" / f"chapter-{f // 10 % 10:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        lines: list[str] = []
        for k in range(per_file):
            title, _, content = node_texts(made, rng)
            level = 1 if k == 0 else (2 if k % 10 == 1 else 3)
            lines.append(f"{'#' * level} {title}\n\n{content}\n")
            made += 1
        (sub / f"file-{f % 10:02d}.md").write_text("\n".join(lines), encoding="utf-8")
    (folder / "README.md").write_text("# Synthetic\n\nA synthetic folder corpus for the benchmark.\n", encoding="utf-8")


def child(path: str, repeat: int) -> None:
    """Load ``path`` ``repeat`` times in this process; print the best time, the node count and peak memory."""
    import resource

    from explorer.corpora import load_corpus

    best = cpu = float("inf")
    nodes = 0
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        corpus = load_corpus(path)
        best = min(best, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
        nodes = len(corpus.index)
        del corpus
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": best, "cpu": cpu, "nodes": nodes, "peak_mb": peak}))


def measure(path: Path, repeat: int) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", str(path), "--repeat", str(repeat)],
        capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"loading {path} failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--million", type=int, default=1_000_000)
    parser.add_argument("--only", nargs="*", choices=["yaml", "json", "markdown", "json-million"])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--write", nargs=3, metavar=("NAME", "PATH", "COUNT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.repeat)
        return
    if args.write:
        name, where, count = args.write
        writers = {"yaml": write_yaml, "json": write_json, "markdown": write_markdown, "json-million": write_json}
        writers[name](Path(where), int(count))
        return
    n, m = args.nodes, args.million
    cases = [
        # YAML is the hand-written format, read by libyaml (issue 18 dropped a third, line-by-line reader that
        # refused what yaml.dump writes): a large corpus belongs in PageIndex JSON or Markdown.
        Case("yaml", f"YAML, {n:,} nodes", 3.0),
        Case("json", f"PageIndex JSON, {n:,} nodes", 0.6),
        Case("markdown", f"Markdown folder, ~{n:,} nodes", 2.0),
        Case("json-million", f"PageIndex JSON, {m:,} nodes", 6.0),
    ]
    wanted = set(args.only or [case.name for case in cases])
    print(f"corpus loading, best of {args.repeat}, each in a fresh process; python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="corpus-load-") as tmp:
        folder = Path(tmp)
        places = {
            "yaml": (folder / "synthetic.yaml", n),
            "json": (folder / "synthetic.json", n),
            "markdown": (folder / "synthetic-md", n),
            "json-million": (folder / "million.json", m),
        }
        for case in cases:
            if case.name not in wanted:
                continue
            path, count = places[case.name]
            # Written by a process of its own: Linux carries a process's peak memory into a child it starts, so a
            # parent that had held the generated tree would inflate every load's peak.
            subprocess.run([sys.executable, __file__, "--write", case.name, str(path), str(count)], check=True)
            size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else \
                path.stat().st_size
            figure = measure(path, args.repeat)
            met = "met" if figure["seconds"] < case.target else "NOT met"
            print(f"{case.what:<32} {figure['seconds']:6.2f} s (target < {case.target:.1f} s: {met}; "
                  f"CPU {figure['cpu']:.2f} s)  {int(figure['nodes']):>9,} nodes  {size / 1e6:6.1f} MB on disk  "
                  f"peak {figure['peak_mb']:6.0f} MB")
            if path.is_dir():
                import shutil

                shutil.rmtree(path)
            else:
                path.unlink()


if __name__ == "__main__":
    main()
