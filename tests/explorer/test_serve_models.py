"""Every way a served session's client names a model goes through the one resolver, with the session's rules (issue
30, points 1 and 2), over a real web socket.

`reasoning-explorer serve --no-files --navigator local:smollm2` runs as a subprocess on 127.0.0.1, its sessions on
the real local model; the test speaks textual-serve's protocol to it as the page does and reads the screen through a
terminal emulator. The what-if's model field (``W``) is refused a model path as ``m`` is, and learns nothing of the
server's files; the local model's sizes (``threads``, ``ctx``, ``slots``) are the server's, so a client's are refused
wherever it types them, and the session runs one local model server whatever is typed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.samples import SAMPLES

from .navigators.conftest import model_missing
from .serve_helpers import Tab, children_of, cmdline, serving, wait_until

HANDBOOK = SAMPLES / "handbook.yaml"
REFUSED = "reads a file on this machine, and files are off in this session; choose a navigator that names no file"
SIZES = ("in a served session the local model's threads, ctx and slots are the server's, set when serve starts "
         "(--local-threads, --local-ctx, --local-slots); leave {key} out of the model id")
TAB, HOME, KILL_LINE, CTRL_R, ESCAPE = "\t", "\x01", "\x0b", "\x12", "\x1b"
LLM_WAIT = 240.0  # seconds: the local model loads and decides on a busy machine; a hang guard, not a measure


def squeezed(text: str) -> str:
    """``text`` without spaces: a long line wraps anywhere in a dialog."""
    return "".join(text.split())


def model_servers(session: int) -> list[int]:
    """The llama.cpp servers a session's explorer runs."""
    return [pid for pid in children_of(session) if "explorer.navigators.llm.llama_child" in cmdline(pid)]


def model_field(tab: Tab) -> str:
    """What the what-if's model field shows (the row under its titled border)."""
    rows = tab.screen.display
    top = next((n for n, row in enumerate(rows) if "╭─ model ─" in row), None)
    if top is None or top + 1 >= len(rows):
        return ""
    start = rows[top].index("╭─ model ─")
    return rows[top + 1][start + 1:rows[top].index("╮", start)].strip()


async def to_the_model_field(tab: Tab) -> None:
    """In the what-if just opened, move the focus from the system message to the model field."""
    # A key typed shows where the focus is: the system message (the dialog opens on it; local:smollm2's is the ids
    # prompt), its cursor at the start.
    await tab.press("#")
    await tab.wait_for(lambda: "#You pick sections" in tab.flat(), "the focus in the system message")
    await tab.press("\x7f")  # backspace
    await tab.wait_for(lambda: "#You pick sections" not in tab.flat(), "the system message as it was")
    await tab.press(TAB * 3)  # from the system message: the user message, the answers, the model


async def ask_again_with(tab: Tab, model: str, said: str) -> str:
    """In the what-if, put ``model`` in the model field (focused), ask again (ctrl+r) and wait for ``said``."""
    for key in (HOME, KILL_LINE):  # one message each: text sent with them in one message was lost
        await tab.press(key)
    await tab.wait_for(lambda: model_field(tab) == "", "the model field emptied")
    await tab.press(model)
    await tab.wait_for(lambda: model_field(tab) == model, f"{model} in the model field")
    await tab.press(CTRL_R)
    return str(await tab.wait_for(lambda: squeezed(said) in squeezed(tab.flat()) and tab.flat(), f"{said!r}",
                                  timeout=LLM_WAIT))


@pytest.mark.model
@pytest.mark.process
def test_a_served_session_resolves_every_model_it_is_given_with_the_sessions_rules(tmp_path: Path) -> None:
    if model_missing() is not None:
        pytest.skip(model_missing() or "")
    canary = tmp_path / "canary.gguf"
    canary.write_bytes(b"GGUF-CANARY")
    learned = ("GGUF model file", "no such model file", "is a folder", "cannot read", "CANARY", "Permission")

    async def drive(served) -> None:
        tab = await Tab.open(served.port, width=200, height=50)
        try:
            await tab.shows("walk started")
            await tab.press("n")
            await tab.shows("Step 2/2")
            await tab.press("n")
            await tab.wait_for(lambda: "Step 3/3" in tab.flat(), "the local model's first decision", LLM_WAIT)
            [session] = served.sessions()
            assert len(model_servers(session)) == 1
            await tab.press("W")
            await tab.shows("ctrl+r asks the edited request once")
            await to_the_model_field(tab)
            for path in ("/etc/shadow", "/nonexistent/x.gguf", str(tmp_path), str(canary)):
                shown = await ask_again_with(tab, f"local:{path}", f"navigator 'local:{path}' {REFUSED}")
                assert not any(word in shown for word in learned), shown
            shown = await ask_again_with(tab, "local:smollm2@ctx=32768", "ctx=32768: " + SIZES.format(key="ctx"))
            await tab.press(ESCAPE)
            await tab.wait_for(lambda: "What if — walk 1" not in tab.flat(), "the what-if to close")
            # m: the navigator prompt says the same of the sizes
            await tab.press("m")
            await tab.wait_for(lambda: "Enter accepts" in tab.dialog(), "the navigator prompt")
            await tab.press("local:smollm2@slots=64,ctx=32769\r")
            said = squeezed("slots=64: " + SIZES.format(key="slots"))
            await tab.wait_for(lambda: said in squeezed(tab.dialog()), "the prompt's refusal")
            await tab.press(ESCAPE)
            await tab.ping("after m")
            assert len(model_servers(session)) == 1
        finally:
            await tab.close()

    with serving(tmp_path, str(HANDBOOK), "--no-files", "--navigator", "local:smollm2", "--query",
                 "How long do refunds take to arrive?") as served:
        asyncio.run(drive(served))
        wait_until(lambda: not served.sessions(), "the session to end with its tab")
        assert "Traceback" not in served.printed()
