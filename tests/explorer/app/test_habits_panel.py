"""The step panel and the transcript say an LLM decision's habits, at 80×24 and 120×40: a model on 127.0.0.1 that
answers the roots with billing then `plans` eight times, its reason the prompt's placeholder. Read at 80×24, then
again after the terminal is resized to 120×40 in the same app."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from core import TreeNavigator
from explorer.navigators.openai_compat import OPENAI_API_KEY_ENV, OPENAI_BASE_URL_ENV
from explorer.tui.widgets.step_panel import StepPanel

from ..http_stub import Recorded, Reply, StubServer
from ..test_habits import PLACEHOLDER, SYSTEM_PROMPT
from .helpers import make_app, resize, wait_for
from .llm_stub import chose
from .reading import drawn_lines, step_text, transcript_text

QUERY = "When is my invoice sent?"
HABITS = f"Habits  its reason copies the prompt: “{PLACEHOLDER}” · 7 duplicate ids dropped"


def repeating(request: Recorded) -> Reply:
    offered = request.json()["response_format"]["json_schema"]["schema"]["properties"]["selected"]["items"]["enum"]
    selected = ["billing", *["plans"] * 8] if offered[0] == "accounts" else []
    content = json.dumps({"selected": selected, "rationale": PLACEHOLDER})
    return Reply(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubServer]:
    with StubServer(respond=repeating) as stub:
        monkeypatch.setenv(OPENAI_API_KEY_ENV, "sk-test-habits")
        monkeypatch.setenv(OPENAI_BASE_URL_ENV, stub.url)
        yield stub


async def test_the_step_panel_flags_the_copied_reason_and_the_repeated_ids(
        server: StubServer, resolved: Callable[[str], TreeNavigator], tmp_path: Path) -> None:
    system = tmp_path / "system.txt"
    system.write_text(SYSTEM_PROMPT, encoding="utf-8")
    model = f"openai:habit-model@system={system}"
    app = make_app(QUERY, model, navigator=resolved(model))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape", "n", "n", "n")
        walk = app.walk_screen
        await wait_for(pilot, lambda: chose(walk) is not None)
        await wait_for(pilot, lambda: "Habits" in step_text(app))
        for size in ((80, 24), (120, 40)):
            await resize(pilot, size)
            lines = step_text(app).splitlines()
            assert HABITS in lines
            assert lines[lines.index(HABITS) - 1] == f"Why     {PLACEHOLDER}"
            drawn = " ".join(" ".join(line.split()) for line in drawn_lines(walk.query_one(StepPanel)))
            assert "Habits its reason copies the prompt" in drawn  # on screen, wrapped to the panel's width
            if size == (80, 24):
                await pilot.press("right_square_bracket")  # the Transcript tab
            await wait_for(pilot, lambda: transcript_text(app) != "")
            assert f"Habits: its reason copies the prompt: “{PLACEHOLDER}” · 7 duplicate ids dropped" in (
                transcript_text(app).splitlines())
