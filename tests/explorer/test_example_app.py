"""examples/my_app.py end to end, as real processes: the application records its walks and sends their spans; the
real CLI opens the folder and the span file (replay, diff, export), forks a walk, replays it with a bigger budget
and compares; and the spans make a round trip through a real OTLP/HTTP receiver on 127.0.0.1."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict

from explorer.cli.inputs import all_walks
from tests.samples import SAMPLES, SHIPPED

from .otlp_receiver import OtlpReceiver

pytestmark = [pytest.mark.process]

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "examples" / "my_app.py"
HANDBOOK = SAMPLES / "handbook.yaml"
NAVIGATOR = "py:examples/my_app.py:WordOverlapNavigator"
QUERIES = ["how long do refunds take", "can I get a refund for an annual plan"]
TIMEOUT = 120


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """A real process from the repository's root (where ``py:examples/my_app.py`` is found)."""
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=TIMEOUT, cwd=ROOT,
                          stdin=subprocess.DEVNULL, env={**_env(), "COLUMNS": "120"})


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "REASONING_EXPLORER_OTLP_ENDPOINT"}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run("-m", "explorer", *args)


def as_json(done: subprocess.CompletedProcess[str]) -> Any:
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The application run once: its walks' folder and its span file."""
    here = tmp_path_factory.mktemp("app")
    done = run(str(APP), "--walks", str(here / "walks"), "--otlp-file", str(here / "walks.otlp.jsonl"),
               "--max-visits", "2", *QUERIES)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["how long do refunds take: accounts",
                                        "can I get a refund for an annual plan: free-plan"]
    assert done.stderr == f"recorded 2 walk(s) in {here / 'walks'}\n"
    return here / "walks", here / "walks.otlp.jsonl"


def first_trace(folder: Path) -> Path:
    return sorted(folder.glob("walk-*.jsonl"))[0]


def test_the_folder_and_the_span_file_open_as_the_walk_list_newest_first(recorded: tuple[Path, Path]) -> None:
    folder, spans = recorded
    for source in (folder, spans):
        traces, corpus = all_walks(str(source))
        assert corpus.path.resolve() == (SHIPPED / "handbook.yaml").resolve()  # the example app walks the shipped one
        assert sorted(t.header.settings.query for t in traces) == sorted(QUERIES)
        assert {t.header.settings.model for t in traces} == {NAVIGATOR}
    traces, _ = all_walks(str(folder))
    assert [t.header.settings.query for t in traces] == QUERIES[::-1]


def test_replay_opens_a_recorded_trace_and_the_span_file_alike(recorded: tuple[Path, Path]) -> None:
    folder, spans = recorded
    from_trace = as_json(cli("replay", str(first_trace(folder)), "--json"))
    from_spans = as_json(cli("replay", str(spans), "--json"))
    for replayed in (from_trace, from_spans):
        assert replayed["query"] == QUERIES[0]
        assert replayed["stops"] == [{"reason": "navigator_stopped", "path": ["accounts"], "branch": None,
                                      "landed": "accounts", "detail": ""}]
        assert replayed["summary"]["answered"] == {"live": 0, "forced": 0, "replayed": 2, "cached": 0}
    second = as_json(cli("replay", f"{spans}#2", "--json"))
    assert second["query"] == QUERIES[1] and second["summary"]["landed"] == ["free-plan"]
    said = cli("replay", str(spans))
    assert said.stderr == (f"reasoning-explorer: {spans} holds 2 walks; this is the first ({spans}#2 names the "
                           "next)\n")


def test_the_span_file_and_the_trace_made_the_same_decisions(recorded: tuple[Path, Path]) -> None:
    folder, spans = recorded
    done = cli("diff", str(first_trace(folder)), str(spans))
    assert done.returncode == 0, done.stdout + done.stderr
    assert as_json(cli("diff", "--json", str(first_trace(folder)), str(spans)))["same_decisions"] is True


def test_export_writes_the_span_files_walk_as_html(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    _, spans = recorded
    page = tmp_path / "walk.html"
    done = cli("export", f"{spans}#2", "--html", str(page))
    assert done.returncode == 0, done.stderr
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_fork_then_replay_with_a_bigger_budget_then_compare(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    folder, _ = recorded
    fork = tmp_path / "fork.jsonl"
    forked = cli("walk", str(HANDBOOK), QUERIES[0], "--navigator", NAVIGATOR, "--max-visits", "2",
                 "--force", "start=billing", "--trace", str(fork), "--json")
    assert as_json(forked)["stops"] == [{"reason": "visit_budget_exhausted", "path": ["billing", "invoices"],
                                         "branch": None, "landed": "invoices",
                                         "detail": "no visit left to go deeper"}]
    bigger = as_json(cli("replay", str(fork), "--max-visits", "6", "--navigator", NAVIGATOR, "--json"))
    assert bigger["settings"]["max_nodes_visited"] == 6
    assert [(s["reason"], s["path"]) for s in bigger["stops"]] == [
        ("leaf", ["billing", "invoices", "invoice-contents"])]
    assert bigger["summary"]["answered"] == {"live": 1, "forced": 1, "replayed": 1, "cached": 0}
    compared = cli("diff", str(first_trace(folder)), str(fork))
    assert compared.returncode == 1
    lines = compared.stdout.splitlines()
    assert lines[1:4] == [
        "First divergence: decision 1, at the roots (chose differently)",
        "  A (step 2→3) chose accounts — 1 word(s) in common with the query",
        "      offered: accounts, plans, billing, support, data-privacy, security, people-policies, onboarding +1",
    ]
    assert "Landed only in A: accounts (navigator_stopped)" in lines
    assert "Landed only in B: invoices (visit_budget_exhausted)" in lines
    report = as_json(cli("diff", "--json", str(first_trace(folder)), str(fork)))
    assert report["first_divergence"]["a"]["selected"] == ["accounts"]
    assert report["first_divergence"]["b"]["selected"] == ["billing"]
    assert report["first_divergence"]["b"]["forced"] is True


def _hex_ids(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: (base64.b64decode(v).hex() if k in ("traceId", "spanId", "parentSpanId") else _hex_ids(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_hex_ids(v) for v in value]
    return value


def test_a_round_trip_through_a_real_otlp_http_receiver(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    folder, _ = recorded
    with OtlpReceiver() as receiver:
        done = run(str(APP), "--walks", str(tmp_path / "walks"), "--otlp-endpoint", receiver.url, "--max-visits",
                   "2", QUERIES[0])
        assert done.returncode == 0, done.stderr
        receiver.wait_for(1)
        requests = list(receiver.requests)
        roots = [s for s in receiver.spans() if not s.parent]
    assert [r.attributes["input.value"] for r in roots] == [QUERIES[0]]
    assert roots[0].attributes["openinference.span.kind"] == "RETRIEVER"
    received = tmp_path / "received.otlp.json"  # what a tracing tool would export back: OTLP JSON, hex ids
    received.write_text(json.dumps([_hex_ids(MessageToDict(r)) for r in requests]))
    assert cli("diff", str(first_trace(folder)), str(received)).returncode == 0
    assert as_json(cli("replay", str(received), "--json"))["summary"]["landed"] == ["accounts"]
