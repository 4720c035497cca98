"""Best-first against depth-first at scale: wall time, peak memory, ``--json`` and trace bytes of one headless walk.

Run: .venv/bin/python bench/policies_scale.py [--nodes N] [--budgets 2000,10000] [--cap-seconds S] [--cap-mb M]

The corpus is ``bench/tui_large.py``'s synthetic PageIndex JSON (default 200,000 nodes, fanout 20). The navigator
(a ``py:`` navigator written beside it) chooses every child offered, so that both policies spend their whole
budget. Each case is ``reasoning-explorer walk CORPUS "item topic section" --navigator py:... --max-depth 8
--max-visits B --policy P --json --trace FILE``, run in a fresh child process (``explorer.cli.main.main``, in
process) so one case's memory does not count against another's; the child reports its own wall time and peak
resident memory (``getrusage``), and the sizes of what it printed and of the trace it wrote.

A case that would take the machine down is cut short: the child's address space is capped (``--cap-mb``, default
5,000 MB: a ``MemoryError``) and its wall time too (``--cap-seconds``, default 240: killed). Such a case prints
what capped it instead of figures. The machine is shared: wall times vary with other processes' load; each figure
is one run's. It asserts nothing.

Then, in this process, stepping back through each policy's walk at the largest budget as the explorer does
(``WalkHistory.go`` and ``state()``): the first step back folds from the start (keeping a checkpoint every
``CHECKPOINT_EVERY`` events), the next ones from the last checkpoint (``--no-stepping`` leaves this out).

Targets (issue 47): best-first's wall time at most 2x depth-first's, peak memory at most 1.5x, ``--json`` and trace
bytes within 2x, at the same budget.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NAVIGATOR = '''
from core import TreeNavigator


class ChooseAll(TreeNavigator):
    """Chooses every child offered, in the order offered."""

    def supports(self, model):
        return True

    def choose(self, request):
        return tuple(view.id for view in request.candidates)
'''
QUERY = "item topic section"
POLICIES = ("depth-first", "best-first")


def run_case(corpus: Path, navigator: Path, budget: int, policy: str, out: Path, trace: Path, cap_mb: int) -> None:
    """In the child: one walk through the command line, its figures printed last on stderr as JSON."""
    limit = cap_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from explorer.cli.main import main

    argv = ["walk", str(corpus), QUERY, "--navigator", f"py:{navigator}:ChooseAll", "--max-depth", "8",
            "--max-visits", str(budget), "--policy", policy, "--json", "--trace", str(trace)]
    started = time.perf_counter()
    code: int | str = "?"
    try:
        with out.open("w") as printed, contextlib.redirect_stdout(printed):
            code = main(argv)
    except MemoryError:
        code = "MemoryError"
    wall = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    figures = {"code": code, "wall": wall, "peak_mb": peak, "json_bytes": out.stat().st_size if out.exists() else 0,
               "trace_bytes": trace.stat().st_size if trace.exists() else 0}
    print(json.dumps(figures), file=sys.stderr)


def measure(corpus: Path, navigator: Path, budget: int, policy: str, cap_mb: int, cap_s: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        out, trace = Path(folder) / "walk.json", Path(folder) / "walk.trace.jsonl"
        command = [sys.executable, __file__, "--case", str(corpus), str(navigator), str(budget), policy, str(out),
                   str(trace), str(cap_mb)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=cap_s, cwd=folder)
        except subprocess.TimeoutExpired:
            return {"capped": f"killed after {cap_s:.0f} s (--cap-seconds)"}
        lines = done.stderr.strip().splitlines()
        try:
            figures: dict[str, Any] = json.loads(lines[-1])
        except (IndexError, ValueError):
            return {"capped": f"the child failed: {lines[-1] if lines else done.returncode}"}
        if figures["code"] == "MemoryError":
            figures["capped"] = f"MemoryError at the {cap_mb:,} MB cap (--cap-mb)"
        return figures


def line(policy: str, budget: int, f: dict[str, Any]) -> str:
    if "capped" in f:
        return f"  {policy:<12} budget {budget:>6,}: {f['capped']}"
    return (f"  {policy:<12} budget {budget:>6,}: {f['wall']:7.1f} s wall, peak {f['peak_mb']:7,.0f} MB, "
            f"--json {f['json_bytes'] / 1e6:8.1f} MB, trace {f['trace_bytes'] / 1e6:8.1f} MB (exit {f['code']})")


def ratios(depth: dict[str, Any], best: dict[str, Any]) -> str:
    if "capped" in depth or "capped" in best:
        return "    best-first / depth-first: not measured (a case was capped)"
    parts = []
    for key, name, target in (("wall", "wall", 2.0), ("peak_mb", "peak memory", 1.5), ("json_bytes", "--json", 2.0),
                              ("trace_bytes", "trace", 2.0)):
        ratio = best[key] / depth[key] if depth[key] else float("inf")
        parts.append(f"{name} {ratio:.2f}x ({'met' if ratio <= target else 'NOT met'}, target <= {target:g}x)")
    return "    best-first / depth-first: " + ", ".join(parts)


def stepping(corpus: Path, budget: int) -> None:
    """Milliseconds to show a step back in each policy's walk, as the explorer's walk history folds it."""
    from core import NavigatorRequest, Policy, ReasoningRAGStrategy, TreeNavigator
    from explorer.corpora import load_corpus
    from explorer.walk_settings import WalkSettings
    from explorer.walks.history import CHECKPOINT_EVERY, WalkHistory

    class ChooseAll(TreeNavigator):
        def supports(self, model: str) -> bool:
            return True

        def choose(self, request: NavigatorRequest) -> tuple[str, ...]:
            return tuple(view.id for view in request.candidates)

    index = load_corpus(corpus).index
    print(f"  stepping back, budget {budget:,} (a checkpoint every {CHECKPOINT_EVERY:,} events):")
    for policy in (Policy.DEPTH_FIRST, Policy.BEST_FIRST):
        strategy = ReasoningRAGStrategy(index, ChooseAll(), "m", max_nodes_visited=budget, max_depth=8, policy=policy)
        history = WalkHistory(WalkSettings(QUERY, "m", policy=policy))
        for event in strategy.walk(QUERY):
            history.append(event)
        total = len(history.events)
        timings = []
        middle = total // 2 - total // 2 % CHECKPOINT_EVERY  # a checkpoint; the step before the next is the farthest
        for step in (total - 1, total - 2, middle, middle + CHECKPOINT_EVERY - 1):
            started = time.perf_counter()
            history.go(step)
            state = history.state()
            timings.append(f"to {step:,}: {(time.perf_counter() - started) * 1000:.0f} ms")
        print(f"    {policy.value:<12} {total:,} events, {len(state.frontier):,} waiting; " + ", ".join(timings))


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--case":
        corpus, navigator, budget, policy, out, trace, cap = sys.argv[2:9]
        run_case(Path(corpus), Path(navigator), int(budget), policy, Path(out), Path(trace), int(cap))
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--nodes", type=int, default=200_000)
    parser.add_argument("--fanout", type=int, default=20)
    parser.add_argument("--budgets", default="2000,10000", help="visit budgets, comma-separated")
    parser.add_argument("--policies", default=",".join(POLICIES))
    parser.add_argument("--cap-seconds", type=float, default=240.0)
    parser.add_argument("--cap-mb", type=int, default=5_000)
    parser.add_argument("--no-stepping", action="store_true", help="leave out stepping back")
    args = parser.parse_args()
    from bench.tui_large import synthetic_pageindex

    with tempfile.TemporaryDirectory() as folder:
        corpus, navigator = Path(folder) / "big.json", Path(folder) / "choose_all.py"
        corpus.write_text(json.dumps(synthetic_pageindex(args.nodes, fanout=args.fanout)))
        navigator.write_text(NAVIGATOR)
        print(f"Walks of {QUERY!r} on a synthetic {args.nodes:,}-node corpus (fanout {args.fanout}), a navigator "
              f"choosing every child, --max-depth 8; each case in its own process")
        for budget in (int(b) for b in args.budgets.split(",")):
            found = {}
            for policy in args.policies.split(","):
                found[policy] = measure(corpus, navigator, budget, policy, args.cap_mb, args.cap_seconds)
                print(line(policy, budget, found[policy]), flush=True)
            if set(found) == set(POLICIES):
                print(ratios(found["depth-first"], found["best-first"]), flush=True)
        if not args.no_stepping:
            stepping(corpus, max(int(b) for b in args.budgets.split(",")))


if __name__ == "__main__":
    main()
