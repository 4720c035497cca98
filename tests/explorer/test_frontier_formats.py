"""A best-first walk's frontier in the explorer's formats (issue 47): traces (version 2) and spans carry what changed,
old traces (version 1, the whole frontier on each event) and old spans still read, and the state rebuilds the
frontier the step panel shows from the changes alone.

The fixtures were written by the code before issue 47 (commit a5e1709), on ``sample_corpora/handbook.yaml``:
``reasoning-explorer walk handbook.yaml "refund for a duplicate charge" --policy best-first --max-visits 8
--navigator py:rank_all.py:RankAll --trace best_first_v1.trace.jsonl --otlp-file best_first_v1.spans.jsonl``, with
a navigator that chose the first two ids offered and scored every one by the length of its title (tenths, so
path scores tie)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from core import CandidatesOffered, NavigatorChose, NodeEntered, PathStopped, Policy, WalkEvent
from explorer.corpora import load_corpus
from explorer.event_json import event_to_json
from explorer.trace import FinishedWalk, TraceError, read_trace, write_trace
from explorer.walk_settings import WalkSettings
from explorer.walks.history import CHECKPOINT_EVERY, WalkHistory
from explorer.walks.state import WalkState
from explorer.walks.telemetry.span_walks import read_span_walks, rebuild
from explorer.walks.waiting import WaitingNodes
from tests.samples import SAMPLES

from ..core.test_frontier_changes import walk

FIXTURES = Path(__file__).resolve().parent / "fixtures"
OLD_TRACE = FIXTURES / "best_first_v1_trace.jsonl"
OLD_SPANS = FIXTURES / "best_first_v1_spans.jsonl"
WITH_FRONTIER = (CandidatesOffered, NavigatorChose, NodeEntered)


def frontiers_written(path: Path) -> list[list[tuple[str, float]]]:
    """Each offer, answer and entry's frontier as a version 1 trace wrote it (absent: empty)."""
    lines = [json.loads(line) for line in path.read_text().splitlines()[1:-1]]
    return [[(node, score) for node, score in data.get("frontier", [])] for data in lines
            if data["event"] in ("candidates_offered", "navigator_chose", "node_entered")]


def frontiers_of(events: Any) -> list[list[tuple[str, float]]]:
    return [list(event.frontier) for event in events if isinstance(event, WITH_FRONTIER)]


def test_an_old_trace_reads_with_the_frontier_each_event_carried_and_is_saved_again_as_its_changes(tmp_path):
    old = read_trace(OLD_TRACE)
    assert (old.header.version, old.header.settings.policy) == (1, Policy.BEST_FIRST)
    written = frontiers_written(OLD_TRACE)
    assert max(len(f) for f in written) == 17 and frontiers_of(old.events) == written
    chose = next(e for e in old.events if isinstance(e, NavigatorChose))
    assert chose.joined == tuple(written[1]) and len(chose.joined) == 8  # the roots' answer: all that joined
    # saved again: version 2, each event its change and no frontier; it reads back with the same frontiers
    path = write_trace(tmp_path / "again.jsonl", FinishedWalk(old.header, old.events, old.end))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["version"] == 2 and not any("frontier" in line for line in lines[1:])
    entries = [line for line in lines if line.get("event") == "node_entered"]
    assert [line["left"] for line in entries] == [[line["node"]["id"]] for line in entries]
    again = read_trace(path)
    assert again.events == old.events and frontiers_of(again.events) == written
    assert path.stat().st_size < OLD_TRACE.stat().st_size


def test_the_state_rebuilds_the_frontier_from_the_changes_at_every_step_back_and_forth():
    old = read_trace(OLD_TRACE)
    history = WalkHistory.from_trace(old)
    written = iter(frontiers_written(OLD_TRACE))
    expected: list[list[tuple[str, float]]] = []
    last: list[tuple[str, float]] = []
    for event in old.events:  # the frontier shown at each step: that of the last offer, answer or entry,
        if isinstance(event, WITH_FRONTIER):  # less the branches stopped since (a walk out of visits drains it)
            last = next(written)
        elif isinstance(event, PathStopped) and event.record.branch is not None:
            last = [entry for entry in last if entry[0] != event.record.branch]
        expected.append(last)
    for step in [*range(1, len(old.events) + 1), *range(len(old.events), 0, -3)]:
        history.go(step)
        state = history.state()
        assert (list(state.frontier.best(5)), len(state.frontier)) == (expected[step - 1][:5], len(expected[step - 1]))
        assert list(state.frontier.all()) == expected[step - 1]


def test_a_new_best_first_walk_round_trips_through_its_trace_with_every_frontier(tmp_path):
    events = walk(Policy.BEST_FIRST, visits=200)
    history = WalkHistory.from_trace(read_trace(OLD_TRACE))  # any header: the settings are not read back here
    path = write_trace(tmp_path / "bf.jsonl", FinishedWalk(history.trace.header, tuple(events), "finished"))
    read = read_trace(path)
    assert read.header.version == 2 and read.events == tuple(events)
    assert frontiers_of(read.events) == frontiers_of(events)
    last = max(seq for seq, e in enumerate(events) if isinstance(e, WITH_FRONTIER))
    final = events[last].frontier
    assert WalkState.from_events(read.events[: last + 1]).frontier.all() == final and len(final) > 100
    # then the walk, out of visits, stops each branch still waiting: none is shown waiting at its end
    drained = [e.record.branch for e in events[last + 1:] if isinstance(e, PathStopped)]
    assert sorted(node for node, _ in final) == sorted(b for b in drained if b in dict(final))
    assert WalkState.from_events(read.events).frontier.all() == ()


def test_an_old_span_file_reads_and_rebuilds_the_same_walk_with_its_frontiers():
    (span_walk,) = read_span_walks(OLD_SPANS)
    rebuilt = rebuild(span_walk, load_corpus(SAMPLES / "handbook.yaml"), OLD_SPANS)
    assert frontiers_of(rebuilt.events) == frontiers_written(OLD_TRACE)


def test_depth_first_events_write_the_same_json_as_before_the_frontier_said_its_changes():
    """The JSON of the 4,274 depth-first events of the core test (every kind of event), hashed with the code before
    issue 47 (commit a5e1709)."""
    events: list[WalkEvent] = walk(Policy.DEPTH_FIRST)
    written = "\n".join(json.dumps(event_to_json(e)) for e in events).encode()
    assert hashlib.sha256(written).hexdigest() == "bc50509ec91d959cb3c14697f8cd6e2cb68f4017b44852f001ae59c9e6af35b6"


def test_waiting_nodes_keep_the_walks_order_through_any_changes():
    rng = random.Random(47)
    waiting = WaitingNodes()
    reference: list[tuple[float, int, str]] = []
    order = 0
    for step in range(3000):
        left = [rng.choice(reference)[2]] if reference and rng.random() < 0.4 else []
        if reference and rng.random() < 0.3:
            left.append(min(reference)[2])  # the best leaves, as in a walk
        joined = [(f"x{step}-{k}", rng.choice([0.25, 0.5, 0.5, 1.0, rng.random()])) for k in range(rng.randint(0, 3))]
        waiting.change(tuple(joined), left)
        reference = [entry for entry in reference if entry[2] not in left]
        for node_id, score in joined:
            order += 1
            reference.append((-score, order, node_id))
        reference.sort()
        assert len(waiting) == len(reference)
        assert waiting.best(5) == tuple((node_id, -rank) for rank, _, node_id in reference[:5])
    assert waiting.all() == tuple((node_id, -rank) for rank, _, node_id in reference)
    copy = waiting.copy()
    copy.change((), [reference[0][2]])
    assert len(copy) == len(waiting) - 1 and waiting.all()[0][0] == reference[0][2]
    assert copy != waiting and waiting.copy() == waiting  # two states compare by what waits, in order
    waiting.change((), [reference[0][2]])
    assert copy == waiting


def test_stepping_back_through_a_long_walk_folds_from_checkpoints_to_the_same_state():
    events = walk(Policy.BEST_FIRST, visits=1800)
    assert len(events) > 2 * CHECKPOINT_EVERY + 100
    history = WalkHistory(WalkSettings("q", "m", policy=Policy.BEST_FIRST))
    for event in events:
        history.append(event)
    every = CHECKPOINT_EVERY
    for step in (len(events) - 1, 2 * every + 7, every, every - 1, 3, 2 * every + 6, every + 1, len(events) - 2):
        history.go(step)
        state, folded = history.state(), WalkState.from_events(events[:step])
        assert (state.step, state.frontier.all(), state.marks(), state.reasons(), state.entered, state.stops,
                state.cost()) == (folded.step, folded.frontier.all(), folded.marks(), folded.reasons(), folded.entered,
                                  folded.stops, folded.cost())
    assert sorted(history._checkpoints) == [every * n for n in range(1, (len(events) - 1) // every + 1)]


@pytest.mark.parametrize(("field", "value", "said"), [
    ("left", ["ghost"], "'ghost' left the frontier without waiting in it"),
    ("left", "ghost", "'left' must be a list of ids"),
    ("joined", [["a", "high"]], "'joined' must be a list of [id, path score] pairs"),
])
def test_a_damaged_change_is_refused_in_one_line_naming_the_line(tmp_path, field, value, said):
    old = read_trace(OLD_TRACE)
    path = write_trace(tmp_path / "bf.jsonl", FinishedWalk(old.header, old.events, old.end))
    lines = path.read_text().splitlines()
    number = next(n for n, line in enumerate(lines, start=1) if '"node_entered"' in line)
    data = json.loads(lines[number - 1])
    data[field] = value
    lines[number - 1] = json.dumps(data)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TraceError) as caught:
        read_trace(path)
    assert str(caught.value) == f"{path}:{number}: a malformed event ({said}); the file is damaged"
