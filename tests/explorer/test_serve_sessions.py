"""What a browser tab's client can send a served explorer (issue 21, points 1, 2 and 11), over a real web socket.

`reasoning-explorer serve` runs as a subprocess on 127.0.0.1; each test speaks textual-serve's protocol to it
with aiohttp's client, as the page does (``["stdin", "m"]``, ``["resize", {...}]``), and reads the screen the
session draws through a terminal emulator: with files off the session reads no file whatever is typed; a huge
terminal is clamped before it reaches a session, whose memory stays bounded; a message that is not what the page
sends is one line in the log (never a traceback), and the session goes on when the message can be ignored.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import aiohttp
import pytest

from core import OnFailure
from explorer.corpora import load_corpus
from explorer.navigators import SUGGESTED_MODELS, resolve_navigator
from explorer.walk_settings import WalkSettings
from explorer.walks.session import WalkSession
from tests.command_line import run_cli
from tests.samples import SAMPLES

from .serve_helpers import ROOT, Tab, memory_of, serving, wait_until

HANDBOOK = SAMPLES / "handbook.yaml"
REFUSED = "reads a file on this machine, and files are off in this session; choose a navigator that names no file"
FILES_OFF = "Opening and saving files is off in this shared session."


async def refused(tab: Tab, model: str) -> str:
    """Open the navigator prompt (m: its field selected, so typing replaces it), type ``model`` and Enter, wait for
    the refusal, and close the prompt (Escape); returns what the prompt said."""
    await tab.press("m")
    await tab.wait_for(lambda: "Enter accepts" in tab.dialog(), "the navigator prompt")
    await tab.press(model + "\r")
    said = "".join(f"navigator '{model}' {REFUSED}".split())  # read without spaces: a long path wraps anywhere
    shown = str(await tab.wait_for(lambda: said in "".join(tab.dialog().split()) and tab.dialog(),
                                   f"the refusal of {model}"))
    await tab.press("\x1b")
    await tab.wait_for(lambda: not tab.dialog(), "the prompt to close")
    return shown


@pytest.mark.process
def test_with_files_off_a_served_session_reads_no_file_whatever_is_typed(tmp_path: Path) -> None:
    script = tmp_path / "secret.yaml"
    script.write_text("decisions:\n  start: {select: [CANARY-SCRIPT-ID], rationale: CANARY-RATIONALE}\n")
    session = WalkSession(load_corpus(HANDBOOK), WalkSettings("CANARY-QUERY", "lexical:default",
                                                              on_failure=OnFailure.PARTIAL),
                          resolve_navigator("lexical:default"))
    session.run_headless()
    trace = session.save_trace(tmp_path / "secret.jsonl")
    passwd = Path("/etc/passwd").read_text().splitlines()[0]
    secrets = ("CANARY", passwd[:20], "root:", "unknown key", "not JSON")

    async def drive(port: int) -> None:
        tab = await Tab.open(port, width=200, height=50)
        try:
            await tab.shows("walk started")
            # m: the navigator prompt lists the shipped models and no file (no script, no trace nearby)
            await tab.press("m")
            listed = await tab.wait_for(lambda: "Enter accepts" in tab.dialog() and tab.dialog(), "the prompt")
            assert listed.endswith(" ".join(SUGGESTED_MODELS) + " Enter accepts · ↓ the list · Escape cancels"), listed
            assert "script:" not in listed and "replay:" not in listed
            await tab.press("\x1b")
            await tab.wait_for(lambda: not tab.dialog(), "the prompt to close")
            for model in ("script:/etc/passwd", f"script:{script}", "replay:/etc/passwd", f"replay:{trace}",
                          f"script:{tmp_path / 'missing.yaml'}"):
                shown = await refused(tab, model)
                assert not any(secret in shown for secret in secrets), shown
                assert not any(secret in tab.flat() for secret in secrets), tab.text()
            assert "lexical:default" in tab.flat()  # the navigator is what it was
            # E and a path typed at once: E is refused before any prompt opens, so no path is ever read
            await tab.press("E/etc/passwd\r")
            await tab.shows(FILES_OFF)
            await tab.ping("after E")
            assert not any(secret in tab.flat() for secret in secrets), tab.text()
            assert "Evaluate: walk a question set" not in tab.flat() and "Evaluation" not in tab.flat()
            # ctrl+o and ctrl+s: the keys that open and save traces
            for key in ("\x0f", "\x13"):
                await tab.wait_for(lambda: FILES_OFF not in tab.flat(), "the last refusal to go", timeout=30)
                await tab.press(key)
                await tab.shows(FILES_OFF)  # this key's refusal
                assert "Open a trace" not in tab.flat() and "Save the trace to" not in tab.flat()
        finally:
            await tab.close()

    with serving(tmp_path, str(HANDBOOK), "--no-files", "--navigator", "lexical:default", "--query", "refunds") \
            as served:
        assert served.printed().splitlines()[1] == ("reasoning-explorer: the sessions' keys that open and save "
                                                    "files are off (--no-files)")
        asyncio.run(drive(served.port))
        wait_until(lambda: not served.sessions(), "the session to end with its tab")
        assert "Traceback" not in served.printed()


def test_with_files_off_a_navigator_naming_a_file_is_refused_before_serving(tmp_path: Path) -> None:
    script = ROOT / "sample_corpora" / "scripts" / "hallucinated-branch.yaml"
    out = run_cli("serve", "--no-files", "--navigator", f"script:{script}", columns=None)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == f"reasoning-explorer: error: navigator 'script:{script}' {REFUSED}\n"


# -- sizes ----------------------------------------------------------------------------------------------------

CURSOR_MOVE = re.compile(rb"\x1b\[(\d+);(\d+)H")
BOUND = 400 * 2**20  # bytes: a session drawing 1,000 x 500 cells, with room to spare (30,000 x 30,000 took 2.7 GB)


def farthest_cell(output: bytes) -> tuple[int, int]:
    """The lowest row and the rightmost column the session's output moved the cursor to."""
    moves = [(int(row), int(column)) for row, column in CURSOR_MOVE.findall(output)]
    return max(row for row, _ in moves), max(column for _, column in moves)


@pytest.mark.parametrize("how", ["query", "resize"])
@pytest.mark.process
def test_a_huge_terminal_is_clamped_and_the_session_memory_stays_bounded(tmp_path: Path, how: str) -> None:
    async def drive(served) -> None:
        if how == "query":
            tab = await Tab.open(served.port, query="width=100000&height=100000", draw=(1000, 500))
        else:
            tab = await Tab.open(served.port, width=120, height=40, draw=(1000, 500))
        try:
            await tab.wait_for(lambda: tab.received > 1000, "the first screen")
            [pid] = served.sessions()
            if how == "resize":
                await tab.wait_for(lambda: b"\x1b[40;" in tab.output, "the first screen's last row")
                tab.output.clear()
                await tab.send(["resize", {"width": 30000, "height": 30000}])
            # The session draws its screen at the new size once: its last row, the 500th, is the event to wait for.
            await tab.wait_for(lambda: b"\x1b[500;" in tab.output, "a screen of 500 rows", timeout=120)
            await tab.ping("drawn")
            assert farthest_cell(bytes(tab.output)) == (500, farthest_cell(bytes(tab.output))[1])
            assert farthest_cell(bytes(tab.output))[1] <= 1000
            assert "Northwind Cloud handbook" in tab.flat()
            memory = memory_of(pid)
            assert memory["VmHWM"] < BOUND, memory
        finally:
            await tab.close()

    with serving(tmp_path, str(HANDBOOK)) as served:
        asyncio.run(drive(served))
        assert "Traceback" not in served.printed()


# -- messages -------------------------------------------------------------------------------------------------


@pytest.mark.process
def test_a_plain_get_of_the_socket_address_is_answered_400(tmp_path: Path) -> None:
    async def check(port: int) -> None:
        async with aiohttp.ClientSession() as client, client.get(f"http://127.0.0.1:{port}/ws") as answer:
            assert answer.status == 400
            assert await answer.text() == (f"this address takes the explorer's web socket; open "
                                           f"http://127.0.0.1:{port}/")

    line = "reasoning-explorer: a plain GET of /ws (not a web socket) was answered 400"
    with serving(tmp_path) as served:
        asyncio.run(check(served.port))
        assert served.sessions() == []
        wait_until(lambda: line in served.printed().splitlines(), "the request's line in the log")
        assert served.printed().splitlines().count(line) == 1
        assert "Traceback" not in served.printed() and "Error handling request" not in served.printed()


IGNORED = [
    (["ping"], "a tab sent a ping without its data; ignored"),
    (["stdin", 5], "a tab sent stdin that is int, not text; ignored"),
    (["stdin", None], "a tab sent stdin that is NoneType, not text; ignored"),
    (["stdin", "\ud800"], "a tab sent stdin that is not UTF-8 text (a lone surrogate); ignored"),
    (["resize", {"width": "x", "height": 40}], "a tab sent a resize whose width is 'x', not a whole number from 1; "
                                               "ignored"),
    (["resize", {"width": -5, "height": -5}], "a tab sent a resize whose width is -5, not a whole number from 1; "
                                              "ignored"),
    (["resize", {"width": 120, "height": 0}], "a tab sent a resize whose height is 0, not a whole number from 1; "
                                              "ignored"),
    (["resize", {"width": True, "height": 40}], "a tab sent a resize whose width is True, not a whole number from 1; "
                                                "ignored"),
    (["resize", [1, 2]], "a tab sent a resize without {width, height}; ignored"),
    (["resize"], "a tab sent a resize without {width, height}; ignored"),
]


@pytest.mark.process
def test_a_message_with_a_wrong_payload_is_one_line_in_the_log_and_the_session_goes_on(tmp_path: Path) -> None:
    async def drive(served) -> int:
        tab = await Tab.open(served.port, width=120, height=40)
        try:
            await tab.shows("Query")
            [pid] = served.sessions()
            for message, _ in IGNORED:
                await tab.send(message)
                await tab.ping(f"after {message!r}")  # answered: the socket is read on, the session is there
            await tab.send(["no-such-kind", 1])  # a kind a newer page may send: ignored without a word
            await tab.send(["resize", {"width": 100, "height": 30}])
            await tab.ping("after the good resize")
            assert served.sessions() == [pid]
            await tab.press("?")  # the session still takes keys: ? shows the help
            await tab.shows("reasoning-explorer — keys")
            return pid
        finally:
            await tab.close()

    with serving(tmp_path, "--query", "refunds") as served:  # the walk starts: the tree has the keys
        asyncio.run(drive(served))
        wait_until(lambda: not served.sessions(), "the session to end with its tab")
        log = [line for line in served.printed().splitlines() if "a tab sent" in line]
        assert log == [f"reasoning-explorer: {line}" for _, line in IGNORED]
        assert "Traceback" not in served.printed()


@pytest.mark.parametrize(("message", "logged"), [
    ("not json at all", "a tab sent a message that is not JSON ('not json at all'); its session is closed"),
    ('{"stdin": "q"}', "a tab sent a message that is not [kind, ...] ('{\"stdin\": \"q\"}'); its session is closed"),
    ("[]", "a tab sent a message that is not [kind, ...] ('[]'); its session is closed"),
    ("[5, 1]", "a tab sent a message that is not [kind, ...] ('[5, 1]'); its session is closed"),
    ("[" * 100_000, "a tab sent a message that is not JSON ('[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["),
    ('"\x1b]0;PWNED\x07"', "a tab sent a message that is not JSON ('\"\\\\x1b]0;PWNED\\\\x07\"'); its session is"),
    ('"\\u001b]0;PWNED"', "a tab sent a message that is not [kind, ...] ('\"\\\\u001b]0;PWNED\"'); its session"),
])
@pytest.mark.process
def test_a_message_that_is_not_the_protocol_closes_the_socket_with_1008_in_one_line(tmp_path: Path, message: str,
                                                                                     logged: str) -> None:
    async def drive(served) -> None:
        tab = await Tab.open(served.port, width=120, height=40)
        try:
            await tab.shows("Query")
            await tab.send(message)
            await asyncio.wait_for(tab.ended.wait(), 60)
            assert tab.close_code == 1008
        finally:
            await tab.close()

    with serving(tmp_path) as served:
        asyncio.run(drive(served))
        wait_until(lambda: not served.sessions(), "the session to end")
        printed = served.printed()
        lines = [line for line in printed.splitlines() if "a tab sent" in line]
        assert len(lines) == 1, printed
        [line] = lines
        assert line.startswith(f"reasoning-explorer: {logged}"), line
        assert "\x1b" not in printed and "Traceback" not in printed


@pytest.mark.process
def test_the_bad_messages_of_one_tab_are_logged_twenty_times_at_most(tmp_path: Path) -> None:
    async def drive(served) -> None:
        tab = await Tab.open(served.port, width=120, height=40)
        try:
            await tab.shows("Query")
            for number in range(25):
                await tab.send(["stdin", number])
            await tab.ping("after 25")
        finally:
            await tab.close()

    with serving(tmp_path) as served:
        asyncio.run(drive(served))
        log = [line for line in served.printed().splitlines() if "a tab sent" in line]
        assert len(log) == 20
        assert log[-1] == ("reasoning-explorer: a tab sent stdin that is int, not text; ignored; more from this tab "
                           "are ignored without a word")


@pytest.mark.process
def test_serve_passes_trace_and_spans_to_each_tab_in_files_of_its_own(tmp_path: Path) -> None:
    from .serve_helpers import cmdline

    trace, spans = tmp_path / "walks.jsonl", tmp_path / "spans.jsonl"

    async def drive(served) -> list[list[str]]:
        first = await Tab.open(served.port, width=120, height=40)
        second = await Tab.open(served.port, width=120, height=40)
        try:
            await first.shows("walk finished")
            await second.shows("walk finished")
            return [cmdline(pid) for pid in sorted(served.sessions())]
        finally:
            await first.close()
            await second.close()

    with serving(tmp_path, str(HANDBOOK), "--navigator", "lexical:default", "--query", "refunds", "--autoplay",
                 "0.05", "--trace", str(trace), "--otlp-file", str(spans)) as served:
        commands = asyncio.run(drive(served))
        wait_until(lambda: not served.sessions(), "the sessions to end")
    assert sorted(arg for command in commands for arg in command if arg.startswith(("--trace=", "--otlp-file="))) == [
        f"--otlp-file={spans}", f"--otlp-file={tmp_path / 'spans.tab2.jsonl'}",
        f"--trace={trace}", f"--trace={tmp_path / 'walks.tab2.jsonl'}"]
    for path in (trace, tmp_path / "walks.tab2.jsonl"):
        assert json.loads(path.read_text().splitlines()[-1]) == {"end": "finished", "error": None}
    for path in (spans, tmp_path / "spans.tab2.jsonl"):
        assert json.loads(path.read_text().splitlines()[0])["resourceSpans"]
