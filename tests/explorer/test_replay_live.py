"""``replay TRACE --navigator MODEL [--from N]``: a recorded walk goes on live where the recording ends (real
traces, the real entry point)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.command_line import run_cli
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
QUERY = "how do I get a refund for my plan"


def cli(*args: object) -> subprocess.CompletedProcess[str]:
    return run_cli(*args)  # type: ignore[return-value]


def document(*args: object) -> dict:
    done = cli(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def chose(doc: dict) -> list[tuple[str | None, list[str], str]]:
    """Each decision: the node judged, what was chosen, and how it was answered (its transcript's first label)."""
    return [(e["current"], e["selected"], (e["transcript"] or [["", ""]])[0][1].split(":")[0])
            for e in doc["events"] if e["event"] == "navigator_chose"]


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A walk of four visits: it judged the roots, plans and changing-plans, and chose billing with no visit left."""
    path = tmp_path_factory.mktemp("traces") / "four.jsonl"
    done = cli("walk", HANDBOOK, QUERY, "--navigator", "lexical:wide", "--max-visits", "4", "--trace", path)
    assert done.returncode == 0, done.stderr
    return path


def test_without_a_navigator_what_the_trace_never_judged_stops(trace: Path) -> None:
    doc = document("replay", trace, "--max-visits", "20")
    assert doc["summary"]["answered"] == {"live": 0, "forced": 0, "replayed": 4, "cached": 0}
    assert doc["summary"]["landed"][-1] == "billing"
    assert doc["stops"][-1] == {"reason": "never_judged", "recorded_reason": "navigator_stopped", "path": ["billing"],
                                "branch": None, "landed": "billing", "detail": ""}
    assert [s["reason"] for s in doc["stops"]].count("navigator_stopped") == 0
    assert doc["summary"]["never_judged"] == ["billing"]
    stopped = [e for e in doc["events"] if e["event"] == "path_stopped"][-1]
    assert stopped["reason"] == "navigator_stopped"  # the events are core's, as recorded


def test_the_replay_report_says_never_judged_where_the_trace_never_judged(trace: Path) -> None:
    done = cli("replay", trace, "--max-visits", "20")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "navigator_stopped" not in out
    assert "    └── ■ never judged (not in the recording) · landed billing\n" in out
    (row,) = [line for line in out.splitlines() if line.startswith("│ ◌") and "│ billing " in line]
    assert row.startswith("│ ◌   │ Billing ") and "│ stand-in: the recording never judged it" in row  # not an answer
    assert "│ never judged (not in the recording) │ 0     │" in row
    assert out.endswith("Finished: 7 landed — leaf ×6, never judged ×1\n")


def test_with_a_navigator_it_answers_what_the_trace_never_judged(trace: Path) -> None:
    replayed = document("replay", trace, "--max-visits", "20", "--navigator", "lexical:wide")
    fresh = document("walk", HANDBOOK, QUERY, "--navigator", "lexical:wide", "--max-visits", "20")
    assert replayed["summary"]["landed"] == fresh["summary"]["landed"]
    assert replayed["summary"]["answered"] == {"live": 4, "forced": 0, "replayed": 3, "cached": 0}
    assert [(node, how) for node, _, how in chose(replayed)] == [
        (None, "replayed"), ("plans", "replayed"), ("changing-plans", "replayed"),
        ("billing", "refund plan"), ("refunds", "refund plan"), ("refund-exceptions", "refund plan"),
        ("annual-plan-refunds", "refund plan")]  # lexical's own transcript starts with its terms: a live answer
    assert replayed["navigator"] == "lexical:wide"


def test_from_n_keeps_the_first_n_decisions_and_asks_for_the_rest(trace: Path) -> None:
    doc = document("replay", trace, "--max-visits", "20", "--navigator", "lexical:strict", "--from", "1")
    decisions = chose(doc)
    assert decisions[0] == (None, ["plans", "billing"], "replayed")
    assert all(how != "replayed" for _, _, how in decisions[1:])
    assert [len(selected) for _, selected, _ in decisions[1:]] == [1] * (len(decisions) - 1)  # strict: one each
    assert doc["summary"]["answered"]["replayed"] == 1
    assert document("replay", trace, "--navigator", "lexical:wide", "--from", "0")["summary"]["answered"][
        "replayed"] == 0


@pytest.mark.parametrize(("args", "message"), [
    (("--from", "1"), "--from N hands the decisions after the trace's first N to a navigator: it needs "
                      "--navigator MODEL"),
    (("--temperature", "1"), "--temperature: 'replay:' is not an LLM navigator; these options apply to "
                             "openai:MODEL, ollama:MODEL, vllm:MODEL, local:MODEL"),
    (("--navigator", "nope:x"), "navigator 'nope:x': no navigator supports 'nope:x'"),
])
def test_what_cannot_go_is_one_line(trace: Path, args, message) -> None:
    done = cli("replay", trace, *args)
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1 and message in done.stderr
