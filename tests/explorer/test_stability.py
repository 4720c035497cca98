"""Stability of one query: the same walk N times (``walk --runs``), in process and through the real CLI.

The CLI tests install a navigator that answers at random from a seed as a real distribution (a ``*.dist-info``
with ``entry_points.txt`` in a folder on PYTHONPATH), so the console script resolves it like any provider.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest

from core import NavigatorChoice, NavigatorRequest, TreeNavigator
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.walk_settings import WalkSettings
from explorer.walks.compare import DivergenceKind
from explorer.walks.stability import StabilityRun, heat_level, report_lines, stability_to_json

from .test_cli import HANDBOOK, SCRIPTS

ROOT = Path(__file__).resolve().parents[2]

TINY = """\
source: tiny
title: Tiny
nodes:
  - id: alpha
    title: Alpha
    summary: First branch.
    content: Alpha.
    children:
      - {id: a1, title: A one, summary: One of alpha., content: A1.}
      - {id: a2, title: A two, summary: Two of alpha., content: A2.}
  - id: beta
    title: Beta
    summary: Second branch.
    content: Beta.
    children:
      - {id: b1, title: B one, summary: One of beta., content: B1.}
      - {id: b2, title: B two, summary: Two of beta., content: B2.}
"""
CHILDREN = {"alpha": ["a1", "a2"], "beta": ["b1", "b2"]}

SEEDED = '''
import random
import threading

from core import NavigatorChoice, TreeNavigator


class SeededNavigator(TreeNavigator):
    """seeded:SEED picks one candidate at random; seeded:SEED:wide picks none, one or two."""

    def __init__(self):
        self.rngs = {}
        self.lock = threading.Lock()

    def supports(self, model):
        return model.startswith("seeded:")

    def choose(self, request):
        _, seed, *mode = request.model.split(":")
        with self.lock:
            rng = self.rngs.setdefault(request.model, random.Random(int(seed)))
            ids = [c.id for c in request.candidates]
            if mode == ["wide"]:
                picked = rng.sample(ids, rng.randint(0, min(2, len(ids))))
            else:
                picked = [rng.choice(ids)]
        return NavigatorChoice(tuple(picked), "at random")
'''


class Seeded(TreeNavigator):
    """The same navigator, in process: one candidate at random from ``seed``."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.lock = threading.Lock()

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        with self.lock:
            return NavigatorChoice((self.rng.choice([c.id for c in request.candidates]),), "at random")


def expected_walks(seed: int, runs: int) -> list[tuple[str, str]]:
    """What the seeded navigator does on the tiny corpus, run by run (one walk after another): a root, then a leaf."""
    rng = random.Random(seed)
    walks = []
    for _ in range(runs):
        root = rng.choice(["alpha", "beta"])
        walks.append((root, rng.choice(CHILDREN[root])))
    return walks


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    return path


@pytest.fixture
def seeded_site(tmp_path):
    """A folder holding the seeded navigator as an installed distribution; put it on PYTHONPATH."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "seeded_nav.py").write_text(SEEDED)
    info = site / "seeded_nav-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: seeded-nav\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[core.tree_navigators]\nseeded = seeded_nav:SeededNavigator\n")
    return site


SCRIPT = shutil.which("reasoning-explorer", path=str(Path(sys.executable).parent)) or "reasoning-explorer"


def run_cli(*args, site=None):
    env = {**os.environ, "COLUMNS": "200"}
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH", "")]))
    return subprocess.run([SCRIPT, *map(str, args)], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


# in process ------------------------------------------------------------------------------------------------


def test_the_distinct_landed_sets_and_frequencies_of_a_seeded_navigator(tiny):
    corpus = load_corpus(tiny)
    walks = expected_walks(7, 20)
    stability = StabilityRun(corpus, WalkSettings("anything"), Seeded(7), 20).run()
    assert (stability.asked, stability.runs, stability.finished, stability.failed, stability.cancelled) == (
        20, 20, 20, 0, 0)
    leaves = Counter(leaf for _, leaf in walks)
    assert {s.nodes: s.count for s in stability.landed_sets} == {(leaf,): n for leaf, n in leaves.items()}
    assert [s.count for s in stability.landed_sets] == sorted(leaves.values(), reverse=True)
    for landed_set in stability.landed_sets:  # which runs landed it, exactly
        assert landed_set.runs == tuple(i for i, (_, leaf) in enumerate(walks, 1) if (leaf,) == landed_set.nodes)
    roots = Counter(root for root, _ in walks)
    frequencies = {f.node: (f.chosen, f.entered, f.landed) for f in stability.nodes}
    assert frequencies == {**{root: (n, n, 0) for root, n in roots.items()},
                           **{leaf: (n, n, n) for leaf, n in leaves.items()}}
    assert [f.node for f in stability.nodes] == [n for n in ("alpha", "a1", "a2", "beta", "b1", "b2")
                                                 if n in frequencies]  # corpus order


def test_the_first_divergence_is_measured_against_the_most_common_decisions(tiny):
    corpus = load_corpus(tiny)
    walks = expected_walks(7, 20)
    stability = StabilityRun(corpus, WalkSettings("anything"), Seeded(7), 20).run()
    pairs = Counter(walks)
    top = max(pairs.values())
    reference = next(w for w in walks if pairs[w] == top)  # a tie: the walk made first
    assert stability.reference_runs == tuple(i for i, w in enumerate(walks, 1) if w == reference)
    assert stability.reference == ((None, (reference[0],)), (reference[0], (reference[1],)))
    other_root = tuple(i for i, (root, _) in enumerate(walks, 1) if root != reference[0])
    other_leaf = tuple(i for i, w in enumerate(walks, 1) if w[0] == reference[0] and w != reference)
    points = {(p.decision, p.node): p for p in stability.divergences}
    assert points[(1, None)].runs == other_root
    assert points[(1, None)].kind is DivergenceKind.CHOSE_DIFFERENTLY
    assert points[(1, None)].reference == (reference[0],)
    assert points[(1, None)].answers == (((next(r for r in CHILDREN if r != reference[0]),), len(other_root)),)
    assert points[(2, reference[0])].runs == other_leaf
    assert len(points) == 2
    assert sum(p.count for p in stability.divergences) + len(stability.reference_runs) == 20
    most = stability.most_frequent_divergence
    assert most is not None and most.count == max(len(other_root), len(other_leaf))


def test_every_frequency_adds_up_on_a_wandering_navigator():
    corpus = load_corpus(HANDBOOK)

    class Wide(Seeded):
        def choose(self, request: NavigatorRequest) -> NavigatorChoice:
            with self.lock:
                ids = [c.id for c in request.candidates]
                return NavigatorChoice(tuple(self.rng.sample(ids, self.rng.randint(0, min(2, len(ids))))), "")

    runs = 30
    stability = StabilityRun(corpus, WalkSettings("anything", max_nodes_visited=6), Wide(3), runs, jobs=3).run()
    assert stability.runs == runs
    assert sum(s.count for s in stability.landed_sets) == runs
    assert sorted(r for s in stability.landed_sets for r in s.runs) == list(range(1, runs + 1))
    assert len(stability.landed_sets) > 1
    for f in stability.nodes:
        assert runs >= f.chosen >= f.entered >= f.landed >= 0 and f.chosen >= 1
    assert sum(p.count for p in stability.divergences) + len(stability.reference_runs) == runs


def test_a_deterministic_navigator_makes_one_landed_set_and_no_divergence():
    corpus = load_corpus(HANDBOOK)
    stability = StabilityRun(corpus, WalkSettings("How are refunds issued?"), resolve_navigator("lexical:default"),
                             4, jobs=2).run()
    assert [(s.nodes, s.count) for s in stability.landed_sets] == [(("refund-delivery",), 4)]
    assert stability.divergences == () and stability.reference_runs == (1, 2, 3, 4)
    assert stability.counts() == {"billing": "4/4", "refunds": "4/4", "refund-delivery": "4/4"}
    assert set(stability.heat().values()) == {4}
    lines = report_lines(stability)
    assert "4 finished · 0 failed · 1 distinct landed set(s) · 4 of 4 walks made the most common decisions" in lines
    assert "Every walk made the same decisions: no divergence." in lines


def test_cancel_ends_every_walk_and_counts_only_those_that_finished():
    corpus = load_corpus(HANDBOOK)

    class Gate(TreeNavigator):
        """Answers at once for the first walk; later calls wait on the walk's token (so only a cancel ends them)."""

        def __init__(self) -> None:
            self.inner = resolve_navigator("lexical:default")
            self.calls = 0
            self.waiting = threading.Event()

        def supports(self, model: str) -> bool:
            return True

        def choose(self, request: NavigatorRequest) -> NavigatorChoice:
            self.calls += 1
            if self.calls > 3:  # the first walk takes 3 decisions
                self.waiting.set()
                request.cancellation.wait(60)
                request.cancellation.raise_if_cancelled()
            return self.inner.choose(request)  # type: ignore[return-value]

    gate = Gate()
    run = StabilityRun(corpus, WalkSettings("How are refunds issued?"), gate, 5)
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(run.run()))
    worker.start()
    assert gate.waiting.wait(30)
    run.cancel()
    worker.join(30)
    assert not worker.is_alive()
    stability = result[0]
    assert (stability.asked, stability.runs, stability.finished, stability.cancelled) == (5, 1, 1, 4)
    assert stability.counts() == {"billing": "1/1", "refunds": "1/1", "refund-delivery": "1/1"}
    assert "1 finished · 0 failed · 4 cancelled (left out)" in report_lines(stability)[1]


def test_heat_levels_follow_the_share_of_runs():
    assert [heat_level(n, 10) for n in (1, 2, 3, 5, 6, 7, 8, 10)] == [1, 1, 2, 2, 3, 3, 4, 4]
    assert [heat_level(n, 5) for n in range(1, 6)] == [1, 2, 3, 4, 4]


# through the CLI ----------------------------------------------------------------------------------------------


@pytest.mark.process
def test_walk_runs_json_of_a_seeded_navigator(tiny, seeded_site):
    out = run_cli("walk", tiny, "anything", "--navigator", "seeded:11", "--runs", "12", "--json", site=seeded_site)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    walks = expected_walks(11, 12)
    assert doc["runs"] == {"asked": 12, "measured": 12, "finished": 12, "failed": 0, "cancelled": 0}
    leaves = Counter(leaf for _, leaf in walks)
    assert {tuple(s["nodes"]): s["count"] for s in doc["landed_sets"]} == {(leaf,): n for leaf, n in leaves.items()}
    assert sum(s["count"] for s in doc["landed_sets"]) == 12
    assert [s["count"] for s in doc["landed_sets"]] == sorted(leaves.values(), reverse=True)
    for node in doc["nodes"]:
        assert 12 >= node["chosen"] >= node["entered"] >= node["landed"]
    roots = Counter(root for root, _ in walks)
    assert {n["node"]: n["chosen"] for n in doc["nodes"]} == {**roots, **leaves}
    most = doc["most_frequent_first_divergence"]
    first = doc["first_divergences"][0]
    assert most == {"decision": first["decision"], "node": first["node"], "count": first["count"]}
    assert sum(p["count"] for p in doc["first_divergences"]) + len(doc["most_common_decisions"]["runs"]) == 12


@pytest.mark.process
def test_walk_runs_text_names_the_landed_sets_and_the_divergence(tiny, seeded_site):
    out = run_cli("walk", tiny, "anything", "--navigator", "seeded:11", "--runs", "12", site=seeded_site)
    assert out.returncode == 0, out.stderr
    walks = expected_walks(11, 12)
    leaves = Counter(leaf for _, leaf in walks)
    assert "Stability: 'anything' walked 12 times with seeded:11 · budget 15" in out.stdout
    assert f"12 finished · 0 failed · {len(leaves)} distinct landed set(s)" in out.stdout
    leaf, count = leaves.most_common(1)[0]
    assert f"  {count:>5}/12  {leaf}" in out.stdout
    assert "Most frequent first divergence: decision " in out.stdout
    assert "walks part from the most common path there (it chose " in out.stdout


def test_walk_runs_jobs_gives_the_same_aggregate_as_one_at_a_time():
    args = ("walk", HANDBOOK, "refund invoice plan", "--navigator", "lexical:wide", "--runs", "6", "--json")
    one = json.loads(run_cli(*args).stdout)
    many = run_cli(*args, "--jobs", "3")
    assert many.returncode == 0, many.stderr
    assert json.loads(many.stdout) == one
    assert one["landed_sets"][0]["count"] == 6 and len(one["landed_sets"]) == 1
    assert one["first_divergences"] == [] and one["most_frequent_first_divergence"] is None


def test_walk_runs_that_fail_exit_1_and_are_counted():
    out = run_cli("walk", HANDBOOK, "q", "--navigator", f"script:{SCRIPTS / 'provider-failure.yaml'}", "--runs", "2",
                  "--json")
    assert out.returncode == 1
    assert json.loads(out.stdout)["runs"] == {"asked": 2, "measured": 2, "finished": 0, "failed": 2, "cancelled": 0}


@pytest.mark.process
def test_stability_json_is_what_the_cli_prints(tiny, seeded_site):
    out = run_cli("walk", tiny, "anything", "--navigator", "seeded:5", "--runs", "4", "--json", site=seeded_site)
    corpus = load_corpus(tiny)
    stability = StabilityRun(corpus, WalkSettings("anything", "seeded:5"), Seeded(5), 4).run()
    assert json.loads(out.stdout) == stability_to_json(stability)


@pytest.mark.parametrize(("args", "message"), [
    # The bounds said are the bounds kept (issue 21): 2 to 100,000, not the parser's 1 to 1,000,000,000.
    (["--runs", "0"], "argument --runs: 0 must be at least 2 (see"),
    (["--runs", "1"], "argument --runs: 1 must be at least 2 (see"),
    (["--runs", "x"], "argument --runs: 'x' is not a whole number"),
    (["--runs", "-3"], "argument --runs: -3 must be at least 2 (see"),
    (["--runs", "100001"], "argument --runs: 100001 must be at most 100,000 (see"),
    (["--runs", "99999999999999"], "argument --runs: 99999999999999 must be at most 100,000 (see"),
    (["--runs", "-99999999999999"], "argument --runs: -99999999999999 must be at least 2 (see"),
    (["--runs", "3", "--jobs", "0"], "argument --jobs: 0 must be at least 1"),
    (["--runs", "3", "--jobs", "65"], "argument --jobs: 65 must be at most 64"),
    (["--runs", "3", "--jobs", "99999999999999"], "argument --jobs: 99999999999999 must be at most 64 (see"),
    (["--jobs", "2"], "--jobs runs walks at once: it needs --runs N"),
    (["--runs", "3", "--trace", "t.jsonl"], "--trace saves one walk; leave it out with --runs"),
])
def test_bad_runs_and_jobs_are_one_line_and_exit_2(args, message):
    out = run_cli("walk", HANDBOOK, "refunds", *args)
    assert out.returncode == 2, out.stdout
    assert out.stderr.startswith("reasoning-explorer: error: ")
    assert message in out.stderr
    assert out.stderr.count("\n") == 1 and out.stdout == ""
