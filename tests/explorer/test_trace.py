"""The trace file: written atomically, read back exactly, and refused with one clear line when broken."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from core import NavigatorChose, OnFailure
from explorer.corpora import load_corpus
from explorer.navigators import NavigatorConfigError, resolve_navigator
from explorer.trace import FinishedWalk, TraceError, TraceHeader, read_trace, trace_lines, write_trace
from explorer.walk_settings import WalkSettings
from explorer.walks.session import WalkSession
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = load_corpus(SAMPLES / "handbook.yaml")
SCRIPT = f"script:{ROOT / 'sample_corpora' / 'scripts' / 'provider-failure.yaml'}"


@pytest.fixture
def walked():
    session = WalkSession(HANDBOOK, WalkSettings("refunds", SCRIPT, on_failure=OnFailure.PARTIAL),
                          resolve_navigator(SCRIPT))
    session.run_headless()
    return session


def header_of(session: WalkSession) -> TraceHeader:
    """The header of the walk's one record."""
    assert session.finished is not None
    return session.finished.header


def test_round_trip_keeps_every_event_exactly(tmp_path, walked):
    path = walked.save_trace(tmp_path / "t.jsonl")
    trace = read_trace(path, corpus_sha256=HANDBOOK.sha256)
    assert trace.events == tuple(walked.events)
    assert (trace.end, trace.error) == ("finished", None)
    header = trace.header
    assert header.settings == WalkSettings("refunds", SCRIPT, 15, 6, OnFailure.PARTIAL)
    assert (header.corpus_sha256, header.corpus_source, header.corpus_format) == (HANDBOOK.sha256, "handbook", "yaml")
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["format"] == "reasoning-explorer-trace" and json.loads(lines[0])["version"] == 2
    assert [json.loads(line)["seq"] for line in lines[1:-1]] == list(range(1, len(walked.events) + 1))
    assert json.loads(lines[-1]) == {"end": "finished", "error": None}


def test_writing_is_atomic_and_leaves_no_temporary_file(tmp_path, walked, monkeypatch):
    path = tmp_path / "t.jsonl"
    path.write_text("the previous trace\n")

    def broken_replace(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        walked.save_trace(path)
    assert path.read_text() == "the previous trace\n"  # untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.jsonl"]


OLD_HEADER = {"format": "reasoning-explorer-trace", "version": 1,
              "corpus": {"path": "/old/handbook.yaml", "sha256": "ab" * 32, "source": "handbook", "format": "yaml"},
              "query": "How are refunds issued?", "navigator": "local:smollm2@temperature=0.8", "max_nodes_visited": 8,
              "max_depth": 3, "on_failure": "partial", "sources": ["billing"], "created": "2026-11-30T12:00:00Z"}
"""A header as traces were written before it carried a :class:`WalkSettings`: the same fields, in this order."""


def test_an_older_trace_header_reads_into_the_walk_settings_and_is_written_back_the_same(tmp_path):
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(OLD_HEADER) + '\n{"end": "cancelled", "error": null}\n')
    header = read_trace(path).header
    assert header.settings == WalkSettings("How are refunds issued?", "local:smollm2@temperature=0.8", 8, 3,
                                           OnFailure.PARTIAL)
    assert (header.corpus_path, header.corpus_sha256, header.corpus_source, header.corpus_format, header.sources,
            header.created) == ("/old/handbook.yaml", "ab" * 32, "handbook", "yaml", ("billing",), "2026-11-30T12:00:00Z")
    # Written back byte for byte: the same keys in the same order, the model under "navigator"; in the format
    # written now (version 2: a best-first walk's events carry the frontier's change, issue 47).
    assert trace_lines(FinishedWalk(header, (), "cancelled"))[0] == json.dumps({**OLD_HEADER, "version": 2})


def test_a_secret_in_the_environment_never_reaches_the_file(tmp_path, walked, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-abcdef123456")
    header = header_of(walked)
    leaked = dataclasses.replace(header, settings=header.settings.but(query="what is sk-live-abcdef123456?"))
    text = "\n".join(trace_lines(FinishedWalk(leaked, walked.events, "finished")))
    assert "sk-live-abcdef123456" not in text and "what is ***?" in text


def test_a_trace_on_another_corpus_is_refused(tmp_path, walked):
    path = walked.save_trace(tmp_path / "t.jsonl")
    with pytest.raises(TraceError, match="the trace was made on a different corpus"):
        read_trace(path, corpus_sha256="0" * 64)


def good_lines(walked, tmp_path):
    return walked.save_trace(tmp_path / "good.jsonl").read_text().splitlines()


def edit(line: str, **changes) -> str:
    data = json.loads(line)
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda lines: [edit(lines[0], version=3), *lines[1:]], ":1: trace format version 3 is not supported"),
    (lambda lines: [edit(lines[0], version=True), *lines[1:]], ":1: trace format version True is not supported"),
    (lambda lines: [edit(lines[0], max_nodes_visited=-5), *lines[1:]],
     ":1: the trace header is damaged ('max_nodes_visited' must be a whole number of at least 1, not -5)"),
    (lambda lines: [edit(lines[0], on_failure="explode"), *lines[1:]], ":1: the trace header is damaged"),
    (lambda lines: [lines[0], edit(lines[1], event="teleported"), *lines[2:]],
     ":2: a malformed event (unknown event kind 'teleported')"),
    (lambda lines: [*lines[:3], edit(lines[3], usage=["x"]), *lines[4:]],
     ":4: a malformed event ('usage' must be a mapping of names to counts, or null)"),
    (lambda lines: [*lines[:3], edit(lines[3], selected="abc"), *lines[4:]],
     ":4: a malformed event ('selected' must be a list of ids)"),
    (lambda lines: [*lines[:4], edit(lines[4], path=[1, 2]), *lines[5:]], ":5: a malformed event ('path' must be"),
    (lambda lines: lines[:-1], "the trace is truncated (no end line"),
    (lambda lines: [*lines[:-1], lines[-1][:4]], "the trace is truncated (its last line is cut short)"),
    (lambda lines: [*lines, lines[1]], "lines after the end of the trace"),
    (lambda lines: ["[1, 2]", *lines[1:]], ":1: not a reasoning-explorer trace"),
])
def test_broken_traces_are_refused_with_one_line(tmp_path, walked, mutate, message):
    lines = good_lines(walked, tmp_path)
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(mutate(lines)) + "\n")
    with pytest.raises(TraceError) as caught:
        read_trace(path)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_write_trace_refuses_an_unknown_end(tmp_path, walked):
    with pytest.raises(ValueError, match="end must be one of"):
        write_trace(tmp_path / "t.jsonl", FinishedWalk(header_of(walked), walked.events, "exploded"))


# hostile files: one TraceError line, never a RecursionError, a ValueError from int() or a read that never ends -----


def seconds(line: str, raw: str) -> str:
    """The line with its ``seconds`` written as ``raw`` JSON text."""
    return re.sub(r'"seconds": [^,}]+', f'"seconds": {raw}', line, count=1)


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda lines: ["[" * 100_000 + "]" * 100_000, *lines[1:]],
     ":1: not a reasoning-explorer trace (JSON nested too deeply to read)"),
    (lambda lines: [lines[0], "[" * 100_000 + "]" * 100_000, *lines[1:]],
     ":2: JSON nested too deeply to read; the file is damaged"),
    (lambda lines: [lines[0].replace('"max_depth": 6', '"max_depth": ' + "9" * 5000), *lines[1:]],
     ":1: not a reasoning-explorer trace (a number with more than 4300 digits)"),
    (lambda lines: [*lines[:3], seconds(lines[3], "1" + "0" * 5000), *lines[4:]],
     ":4: a number with more than 4300 digits; the file is damaged"),
    (lambda lines: [*lines[:3], seconds(lines[3], "NaN"), *lines[4:]],
     ":4: NaN is not a number a trace holds; the file is damaged"),
    (lambda lines: [*lines[:3], seconds(lines[3], "-Infinity"), *lines[4:]],
     ":4: -Infinity is not a number a trace holds; the file is damaged"),
])
def test_hostile_json_is_one_trace_error_with_the_line(tmp_path, walked, mutate, message):
    lines = good_lines(walked, tmp_path)
    assert '"seconds": ' in lines[3] and '"max_depth": 6' in lines[0]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(mutate(lines)) + "\n")
    with pytest.raises(TraceError) as caught:
        read_trace(path)
    assert str(caught.value) == f"{path}{message}"


def test_a_folder_is_refused_as_a_trace(tmp_path):
    with pytest.raises(TraceError) as caught:
        read_trace(tmp_path)
    assert str(caught.value) == f"{tmp_path}: a folder, not a trace file; give a trace (.jsonl) saved by a walk"


def test_a_fifo_is_refused_without_reading_it(tmp_path):
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def read() -> None:
        try:
            read_trace(fifo)
        except BaseException as exc:  # handed to the test thread
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(30)  # a hang guard: before the fix, opening the pipe waits for a writer forever
    if reader.is_alive():
        with open(fifo, "w"):  # let the stuck reader go
            pass
        pytest.fail("read_trace waited on a FIFO")
    assert isinstance(outcome[0], TraceError)
    assert str(outcome[0]) == (f"{fifo}: a FIFO (named pipe), not a regular file; give a trace (.jsonl) saved by "
                               "a walk")


def test_a_file_name_too_long_for_the_file_system_is_one_trace_error(tmp_path):
    path = tmp_path / ("a" * 300 + ".jsonl")
    with pytest.raises(TraceError) as caught:
        read_trace(path)
    assert str(caught.value) == f"{path}: the path is longer than the file system allows; give a shorter path"


def test_messages_escape_terminal_controls_from_the_file_and_its_header(tmp_path, walked):
    lines = good_lines(walked, tmp_path)
    header = json.loads(lines[0])
    header["corpus"]["path"] = "\x1b]0;PWNED\x07\x1b[2J\u202eevil\x9b.yaml"
    path = tmp_path / "evil\x1b[31m.jsonl"
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    with pytest.raises(TraceError) as caught:
        read_trace(path, corpus_sha256="0" * 64)
    message = str(caught.value)
    assert message.startswith(f"{tmp_path}/evil\\x1b[31m.jsonl: the trace was made on a different corpus "
                              "(\\x1b]0;PWNED\\x07\\x1b[2J\\u202eevil\\x9b.yaml, sha256 ")
    assert not any(c in message for c in "\x1b\x07\u202e\x9b")


def test_lone_surrogates_and_terminal_controls_are_written_escaped_and_read_back_the_same(tmp_path, walked):
    header = header_of(walked)
    header = dataclasses.replace(header, settings=header.settings.but(query="caf\udce9 \x1b[2J \u202e \x9b"))
    chose = next(i for i, e in enumerate(walked.events) if isinstance(e, NavigatorChose))
    events = list(walked.events)
    events[chose] = dataclasses.replace(events[chose], rationale="half a pair \ud83d and \x85")
    path = write_trace(tmp_path / "t.jsonl", FinishedWalk(header, events, "finished"))
    raw = path.read_bytes()
    raw.decode("utf-8")  # strict: every line is UTF-8
    for character in ("\x1b", "\u202e", "\x9b", "\x85"):
        assert character.encode() not in raw
    assert b"caf\\udce9 \\u001b[2J \\u202e \\u009b" in raw
    trace = read_trace(path)
    assert trace.header.settings.query == "caf\udce9 \x1b[2J \u202e \x9b"
    assert trace.events == tuple(events)


def test_a_secret_with_quotes_is_masked_as_it_is_written(tmp_path, walked, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", 'sk-"quoted"\\key')
    header = header_of(walked)
    leaked = dataclasses.replace(header, settings=header.settings.but(query='echo sk-"quoted"\\key'))
    text = "\n".join(trace_lines(FinishedWalk(leaked, walked.events, "finished")))
    assert "quoted" not in text and json.loads(text.splitlines()[0])["query"] == "echo ***"


def test_a_long_file_name_still_gets_a_temporary_name_that_fits(tmp_path, walked):
    path = walked.save_trace(tmp_path / ("t" * 245 + ".jsonl"))
    assert read_trace(path).events == tuple(walked.events)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


# temporary files a killed save left -----------------------------------------------------------------------------


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(60)
    return child.pid


def test_a_save_removes_the_temporary_files_killed_saves_left(tmp_path, walked):
    path = tmp_path / "t.jsonl"
    gone = tmp_path / f".t.jsonl.{dead_pid()}.abcd1234.tmp"  # its writer was killed a moment ago
    old = tmp_path / ".t.jsonl.k3j_x9qz.tmp"  # an older version's name, without a pid: stale after a minute
    live = tmp_path / f".t.jsonl.{os.getpid()}.zzzz0000.tmp"  # a save in progress in this process
    other = tmp_path / f".t.jsonl.5.{dead_pid()}.abcd1234.tmp"  # a killed save of another file, t.jsonl.5
    for leftover in (gone, old, live, other):
        leftover.write_text('{"format": "reasoning-explorer-trace"')
    a_while_ago = time.time() - 120
    os.utime(old, (a_while_ago, a_while_ago))
    os.utime(other, (a_while_ago, a_while_ago))
    walked.save_trace(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["t.jsonl", live.name, other.name])
    os.utime(live, (a_while_ago, a_while_ago))  # a minute on, even a live writer's file is stale
    walked.save_trace(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["t.jsonl", other.name])


def test_the_temporary_name_carries_the_writers_pid(tmp_path, walked, monkeypatch):
    seen: list[str] = []
    real_replace = os.replace

    def replace(source, destination):
        seen.append(Path(source).name)
        real_replace(source, destination)

    monkeypatch.setattr(os, "replace", replace)
    walked.save_trace(tmp_path / "t.jsonl")
    assert len(seen) == 1
    assert re.fullmatch(rf"\.t\.jsonl\.{os.getpid()}\.[a-z0-9_]+\.tmp", seen[0])


def test_saving_over_a_fifo_is_refused_and_leaves_it_in_place(tmp_path, walked):
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(FileExistsError, match="it is not a regular file"):
        walked.save_trace(fifo)  # a rename would replace it: as root, `--trace /dev/null` would replace /dev/null
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.jsonl"]


@pytest.mark.parametrize(("damage", "message"), [
    (lambda lines: [lines[0], "[" * 100_000 + "]" * 100_000, *lines[1:]], ":2: JSON nested too deeply to read"),
    (lambda lines: [lines[0].replace('"max_depth": 6', '"max_depth": ' + "9" * 5000), *lines[1:]],
     ":1: not a reasoning-explorer trace (a number with more than 4300 digits)"),
])
def test_the_replay_navigator_refuses_a_hostile_trace_with_one_line(tmp_path, walked, damage, message):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(damage(good_lines(walked, tmp_path))) + "\n")
    with pytest.raises(NavigatorConfigError) as caught:
        resolve_navigator(f"replay:{path}")
    assert str(caught.value).startswith(f"{path}{message}") and "\n" not in str(caught.value)


def test_a_trace_past_the_size_limit_or_with_a_huge_first_line_is_one_line(tmp_path: Path) -> None:
    """A 1 GB trace needed 4.9 GB to replay, and a 1 GB first line 2.9 GB to list its folder (issue 38, point 18):
    past the limit it is refused in one line, and a header is read up to its own limit."""
    from explorer.trace import MAX_HEADER_BYTES, MAX_TRACE_BYTES, read_trace_header
    from tests.command_line import run_cli

    big = tmp_path / "big.jsonl"
    with big.open("wb") as handle:
        handle.write(b'{"format": "reasoning-explorer-trace"}\n')
        handle.truncate(MAX_TRACE_BYTES + 1)  # sparse: no disk is used
    said = (f"{big}: {MAX_TRACE_BYTES + 1:,} bytes, larger than the {MAX_TRACE_BYTES:,} a trace may be; it cannot "
            "be opened here (a saved walk is far smaller: walk it again, or keep fewer steps)")
    for read in (read_trace, read_trace_header):
        with pytest.raises(TraceError) as caught:
            read(big)
        assert str(caught.value) == said
    done = run_cli("replay", big)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"reasoning-explorer: error: {said}\n")
    long_header = tmp_path / "long.jsonl"
    long_header.write_bytes(b'{"format": "' + b"x" * MAX_HEADER_BYTES + b'"}\n')
    with pytest.raises(TraceError) as caught:
        read_trace_header(long_header)
    assert str(caught.value) == (f"{long_header}:1: not a reasoning-explorer trace (its first line is longer than "
                                 f"{MAX_HEADER_BYTES:,} bytes, far past any header)")
