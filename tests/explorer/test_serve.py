"""`reasoning-explorer serve` without a browser: its checks, its command line, its guards, its sessions' ends.

Real processes throughout: the server runs as a subprocess on a free port of 127.0.0.1 and the tests speak
HTTP and web sockets to it (aiohttp's client, installed with textual-serve); sessions are the server's
child processes, read from /proc.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import socket
import subprocess
import sys

import aiohttp
import pytest

from explorer.cli.serve import app_argv, local_model_environment, make_parser, shell_command
from tests.samples import SAMPLES, SHIPPED

from .serve_helpers import ROOT, cmdline, is_alive, serving, wait_until

pytestmark = [pytest.mark.process]

HANDBOOK = SAMPLES / "handbook.yaml"


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "explorer", "serve", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=60, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("args, message", [
    (["--port", "0"], "argument --port: 0 is not a port number (1-65535)"),
    (["--port", "65536"], "argument --port: 65536 is not a port number (1-65535)"),
    (["--port", "http"], "argument --port: 'http' is not a port number"),
    (["--port", "99999999999999"], "argument --port: 99999999999999 is not a port number (1-65535)"),
    (["--port", "-1"], "argument --port: -1 is not a port number (1-65535)"),
    (["--max-sessions", "0"], "argument --max-sessions: 0 must be at least 1"),
    (["--max-sessions", "1001"], "argument --max-sessions: 1001 must be at most 1,000"),
    (["--navigator", "nope:x"], "navigator 'nope:x': no navigator supports 'nope:x'"),
    (["no-such-corpus.yaml"], "no-such-corpus.yaml"),
    (["--query", "  "], "the query is blank; ask a question or leave --query out"),
    (["--autoplay", "0"], "argument --autoplay: 0 must be between 0.05 and 60 seconds"),
    (["--host", "no-such-host.invalid"], "cannot serve on host 'no-such-host.invalid'"),
    (["--bind", "x"], "unrecognized arguments: --bind (see `reasoning-explorer serve --help`)"),
    (["--local-ctx", "100"], "argument --local-ctx: 100 must be at least 256"),
    (["--judge", "nope"], "--judge: no judge is named 'nope'"),
    (["--no-files", "--judge", "script:/etc/passwd"], "--judge: judge 'script:/etc/passwd' reads a file on this "
                                                     "machine, and files are off in this session"),
    (["--host", "0.0.0.0", "--judge", "replay:walk.jsonl"], "judge 'replay:walk.jsonl' reads a file on this machine"),
    (["--judge", "local:smollm2@ctx=8192"], "--judge: ctx=8192: in a served session the local model's "
                                            "threads, ctx and slots are the server's"),
    (["--local-slots", "65"], "argument --local-slots: 65 must be at most 64"),
    (["--navigator", "local:smollm2@ctx=8192"], "ctx=8192: in a served session the local model's threads, ctx and "
                                                "slots are the server's, set when serve starts (--local-threads, "
                                                "--local-ctx, --local-slots); leave ctx out of the model id"),
])
def test_bad_options_are_one_line_and_exit_2_before_serving(args, message):
    out = serve(*args)
    assert out.returncode == 2, out
    assert out.stdout == ""
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("reasoning-explorer: error: "), out.stderr
    assert message in out.stderr


def test_the_local_models_sizes_are_the_servers_fixed_for_every_session_and_help_says_what_a_tab_costs():
    from explorer.cli.serve import local_model_environment

    assert local_model_environment(make_parser().parse_args([])) == {"REASONING_EXPLORER_LOCAL_FIXED": "1"}
    assert local_model_environment(make_parser().parse_args(["--local-ctx", "2048", "--local-slots", "1"])) == {
        "REASONING_EXPLORER_LOCAL_FIXED": "1", "REASONING_EXPLORER_LOCAL_CTX": "2048",
        "REASONING_EXPLORER_LOCAL_SLOTS": "1"}
    shown = " ".join(serve("--help").stdout.split()).replace("--max- sessions", "--max-sessions")  # wrapped at "-"
    assert ("Memory: each tab's explorer takes about 50 MB; one on local:smollm2 also runs its llama.cpp server, "
            "about 150 MB plus 23 KB for each of --local-ctx x --local-slots tokens (340 MB at the defaults, 4,096 x "
            "2); at most --max-sessions tabs run at once.") in shown


def test_a_taken_port_is_one_line_and_exit_2():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = serve("--port", str(port))
    assert out.returncode == 2
    assert out.stderr == (f"reasoning-explorer: error: cannot serve on 127.0.0.1:{port}: Address already in use; "
                          "choose another --port or --host\n")


def test_the_app_command_quotes_every_part_and_runs_this_interpreter(tmp_path):
    hostile = f"$(touch {tmp_path}/owned); `touch {tmp_path}/owned2` 'quote\" -x && rm -rf ~ \n"
    args = make_parser().parse_args([str(HANDBOOK), "--query", hostile, "--navigator", "lexical:default; id",
                                     "--max-visits", "4", "--max-depth", "2", "--on-failure", "partial",
                                     "--autoplay", "0.5"])
    argv = app_argv(args)
    assert argv == [sys.executable, "-m", "explorer.cli.serve_session", str(HANDBOOK), f"--query={hostile}",
                    "--navigator=lexical:default; id", "--max-visits=4", "--max-depth=2", "--on-failure=partial",
                    "--autoplay=0.5"]
    command = shell_command(argv)
    assert shlex.split(command) == ["exec", *argv]
    # What a shell makes of it: the same words, nothing run.
    echo = shell_command([sys.executable, "-c", "import sys; print(repr(sys.argv[1:]))", *argv[3:]])
    out = subprocess.run(["/bin/sh", "-c", echo], capture_output=True, text=True, timeout=60)
    assert out.stdout == repr(argv[3:]) + "\n"
    assert list(tmp_path.iterdir()) == []


def test_the_sessions_local_model_sizes_are_said_in_their_command_not_set_in_this_process():
    args = make_parser().parse_args(["--local-threads", "2"])
    sizes = local_model_environment(args)
    before = dict(os.environ)
    command = shell_command([sys.executable, "-c", "import os; print(os.environ['REASONING_EXPLORER_LOCAL_THREADS'], "
                             "os.environ['REASONING_EXPLORER_LOCAL_FIXED'])"], sizes)
    assert shlex.split(command)[:4] == ["exec", "env", "REASONING_EXPLORER_LOCAL_FIXED=1",
                                        "REASONING_EXPLORER_LOCAL_THREADS=2"]
    out = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, timeout=60)
    assert out.stdout == "2 1\n"
    assert dict(os.environ) == before


def test_files_off_and_the_outputs_reach_each_session_each_tab_in_files_of_its_own(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a relative output is made absolute: the session is told exactly which file
    args = make_parser().parse_args(["--no-files", "--trace", str(tmp_path / "walks.jsonl"), "--otlp-file",
                                     "spans.jsonl", "--otlp-endpoint", "http://127.0.0.1:4318"])
    assert app_argv(args)[3:] == ["--navigator=semantic:hybrid", "--on-failure=throw",
                                  f"--trace={tmp_path / 'walks.jsonl'}", "--otlp-endpoint=http://127.0.0.1:4318",
                                  f"--otlp-file={tmp_path / 'spans.jsonl'}", "--overwrite", "--no-files"]
    assert app_argv(args, tab=3)[5:8:2] == [f"--trace={tmp_path / 'walks.tab3.jsonl'}",
                                           f"--otlp-file={tmp_path / 'spans.tab3.jsonl'}"]
    shared = make_parser().parse_args(["--host", "0.0.0.0"])
    assert app_argv(shared)[-1] == "--no-files"  # shared beyond this machine: always off
    assert "--no-files" not in app_argv(make_parser().parse_args([]))
    judged = app_argv(make_parser().parse_args(["--judge", "lexical:default"]))
    assert judged[-1] == "--judge=lexical:default"  # every tab's judge of the misses
    assert not any(arg.startswith("--judge") for arg in app_argv(make_parser().parse_args([])))


def test_a_query_that_looks_like_an_option_stays_the_query():
    argv = app_argv(make_parser().parse_args(["--query=--max-visits 1"]))
    assert "--query=--max-visits 1" in argv and "--max-visits=1" not in argv


async def open_session(port: int, origin: str | None = None, host: str = "127.0.0.1") -> tuple[
        aiohttp.ClientSession, aiohttp.ClientWebSocketResponse]:
    """A browser's web socket, as the page opens it; returns once the app has drawn its first screen."""
    client = aiohttp.ClientSession()
    headers = {"Origin": origin if origin is not None else f"http://{host}:{port}"}
    try:
        websocket = await client.ws_connect(f"http://127.0.0.1:{port}/ws?width=120&height=40", headers=headers)
        received = 0
        for _ in range(1000):  # the first screen is several kilobytes, in a few messages: bounded all the same
            message = await asyncio.wait_for(websocket.receive(), 60)
            assert message.type == aiohttp.WSMsgType.BINARY, message
            received += len(message.data)
            if received >= 1000:
                break
        else:
            raise AssertionError(f"1,000 messages brought {received} bytes, not the first screen")
    except BaseException:
        await client.close()
        raise
    return client, websocket


def test_the_page_names_the_address_the_browser_used_and_other_host_names_are_refused(tmp_path):
    async def check(port: int) -> None:
        async with aiohttp.ClientSession() as client:
            async with client.get(f"http://127.0.0.1:{port}/") as page:
                assert page.status == 200
                assert f'data-session-websocket-url="ws://127.0.0.1:{port}/ws"' in await page.text()
            async with client.get(f"http://127.0.0.1:{port}/", headers={"Host": f"localhost:{port}"}) as page:
                assert page.status == 200
                assert f'data-session-websocket-url="ws://localhost:{port}/ws"' in await page.text()
            # A name that was made to point here (DNS rebinding) gets nothing.
            async with client.get(f"http://127.0.0.1:{port}/", headers={"Host": f"evil.example:{port}"}) as page:
                assert page.status == 403
                assert await page.text() == f"reasoning-explorer serves this machine only; open http://127.0.0.1:{port}/"

    with serving(tmp_path) as served:
        asyncio.run(check(served.port))
        assert served.sessions() == []


def test_a_page_of_another_site_cannot_open_a_session(tmp_path):
    async def check(port: int) -> None:
        async with aiohttp.ClientSession() as client:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await client.ws_connect(f"http://127.0.0.1:{port}/ws", headers={"Origin": "http://evil.example"})
            assert refused.value.status == 403

    with serving(tmp_path) as served:
        asyncio.run(check(served.port))
        assert served.sessions() == []


def test_each_tab_runs_its_own_explorer_which_ends_with_the_tab_and_the_cap_holds(tmp_path):
    query = "$(touch owned) -x"

    async def check(served) -> None:
        first, first_socket = await open_session(served.port)
        try:
            [pid] = served.sessions()
            assert cmdline(pid)[:4] == [sys.executable, "-m", "explorer.cli.serve_session", str(HANDBOOK)]
            assert f"--query={query}" in cmdline(pid)
            second, second_socket = await open_session(served.port)
            try:
                assert len(served.sessions()) == 2
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:  # --max-sessions 2
                    await first.ws_connect(f"http://127.0.0.1:{served.port}/ws",
                                           headers={"Origin": f"http://127.0.0.1:{served.port}"})
                assert refused.value.status == 503
            finally:
                await second_socket.close()
                await second.close()
            await asyncio.to_thread(wait_until, lambda: len(served.sessions()) == 1, "the closed tab's explorer "
                                    "to end")
            assert served.sessions() == [pid]
        finally:
            await first_socket.close()
            await first.close()
        await asyncio.to_thread(wait_until, lambda: not served.sessions(), "the last explorer to end")

    with serving(tmp_path, str(HANDBOOK), "--query", query, "--max-sessions", "2") as served:
        asyncio.run(check(served))
        assert not (ROOT / "owned").exists()


def test_ctrl_c_ends_the_server_and_its_explorers(tmp_path):
    async def hold(served) -> int:
        client, _ = await open_session(served.port)
        [pid] = served.sessions()
        served.process.send_signal(signal.SIGINT)
        try:
            await asyncio.to_thread(served.process.wait, 60)
        finally:
            await client.close()
        return pid

    with serving(tmp_path) as served:
        pid = asyncio.run(hold(served))
        assert served.process.returncode == 0
        assert not is_alive(pid)
        assert "Traceback" not in served.printed()


def test_an_explorer_ends_when_its_server_is_killed(tmp_path):
    async def hold(served) -> int:
        client, _ = await open_session(served.port)
        [pid] = served.sessions()
        served.process.kill()  # no chance to stop its sessions
        await asyncio.to_thread(served.process.wait, 60)
        await client.close()
        return pid

    with serving(tmp_path) as served:
        pid = asyncio.run(hold(served))
        wait_until(lambda: not is_alive(pid), "the orphaned explorer to end")


def test_the_banner_names_what_is_served_and_where(tmp_path):
    with serving(tmp_path) as served:
        assert served.printed().splitlines()[0] == (  # no corpus given: the shipped sample handbook
            f"reasoning-explorer: serving {SHIPPED / 'handbook.yaml'} on http://127.0.0.1:{served.port} — one explorer per browser "
            "tab, at most 8 at once; Ctrl+C stops")
        out = serve("--port", str(served.port))  # a second server on the same port
        assert out.returncode == 2 and "Address already in use" in out.stderr
