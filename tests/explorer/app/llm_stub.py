"""An OpenAI-compatible model for the explorer's tests, served by :class:`..http_stub.StubServer` on 127.0.0.1:
its model id, the query the stories ask, the answers it gives (queued by a test, or chosen by the system message
it is sent), and how a test reads and steps to them on screen. The fixtures that start it are in ``conftest.py``."""

from __future__ import annotations

import json
import re
from pathlib import Path

from core import NavigatorChose
from explorer.tui.walk_screen import WalkScreen

from ..http_stub import Recorded, Reply
from .helpers import HANDBOOK_PATH, wait_for

MODEL = "openai:test-model"
QUERY = "How long do refunds take to arrive?"
MONEY = "Think of money."
"""A system message that speaks of money: :func:`by_system` then answers by the words of the query."""


def completion(selected: list[str], rationale: str, prompt_tokens: int = 100) -> Reply:
    content = json.dumps({"selected": selected, "rationale": rationale})
    return Reply(200, {"id": "c1", "object": "chat.completion", "model": "test-model",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                    "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 20,
                                 "total_tokens": prompt_tokens + 20}})


def by_system(request: Recorded) -> Reply:
    """The first candidate offered; when the system message speaks of money, the one whose title and summary
    share the most words with the query (the first of those)."""
    system, user = (message["content"] for message in request.json()["messages"])
    offered = re.findall(r"^\d+\. id: (\S+)\n   title: (.*)\n   summary: (.*)$", user, re.MULTILINE)
    if "money" not in system or not offered:
        return completion([i for i, _, _ in offered[:1]], "the first")
    query = set(re.findall(r"\w{4,}", re.search(r"^Query: (.*)$", user, re.MULTILINE).group(1).lower()))
    best = max(offered, key=lambda o: len(query & set(re.findall(r"\w{4,}", f"{o[1]} {o[2]}".lower()))))
    return completion([best[0]], "the closest in words")


def chose(screen: WalkScreen) -> NavigatorChose | None:
    """The first answer of the walk on ``screen``, once it has arrived."""
    history = screen.view.history
    return next((e for e in history.events if isinstance(e, NavigatorChose)), None) if history else None


def answers(screen: WalkScreen) -> int:
    """How many answers the walk on screen shows so far (up to its cursor)."""
    history = screen.view.history
    return 0 if history is None else sum(isinstance(e, NavigatorChose) for e in history.events[:history.cursor])


async def step_to_answer(pilot, screen: WalkScreen, count: int) -> None:  # type: ignore[no-untyped-def]
    """Press n until the walk on screen shows its ``count``-th answer (bounded)."""
    for _ in range(40):
        if answers(screen) >= count:
            return
        cursor = screen.view.history.cursor if screen.view.history else 0
        await pilot.press("n")
        await wait_for(pilot, lambda at=cursor: screen.view.history is not None and screen.view.history.cursor > at)
    raise AssertionError("the walk never showed that answer")


SMALL = """corpus: {corpus}
questions:
  - id: refunds-arrive
    query: How long do refunds take to arrive?
    expect: [refund-delivery]
  - id: money-back
    query: How long until I get my money back?
    expect: [refund-delivery]
  - id: password-billing
    query: Which billing plans and invoices let me sign in with a password?
    expect: [password-sign-in]
  - id: sign-in
    query: What should I type to sign in?
    expect: [password-sign-in]
"""
"""A small question set on the handbook (format it with ``corpus=``): the stub's wrong turn, and three more."""


async def what_if_at_first_answer(pilot):  # type: ignore[no-untyped-def]
    """Step the walk on screen to its first answer and open ``W`` on it; the dialog, once it shows."""
    from explorer.tui.screens.what_if import WhatIfScreen

    app = pilot.app
    await step_to_answer(pilot, app.walk_screen, 1)
    await pilot.press("W")
    await wait_for(pilot, lambda: isinstance(app.screen, WhatIfScreen))
    return app.screen


def small_set_and_money_variant(folder: Path) -> tuple[Path, str]:
    """:data:`SMALL` over the handbook in ``folder``, and the model asked with a variant's system message that speaks
    of money (``prompts/v2.system.txt`` there): the sides of an evaluation that flips questions."""
    small = folder / "small.questions.yaml"
    small.write_text(SMALL.format(corpus=HANDBOOK_PATH), encoding="utf-8")
    system = folder / "prompts" / "v2.system.txt"
    system.parent.mkdir()
    system.write_text(MONEY, encoding="utf-8")
    return small, f"{MODEL}@system={system}"
