"""Driving the explorer as a person would: the app with its notes kept, navigators for tests, bounded waits.

What the screen shows is read widget by widget in :mod:`.reading`."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message
from textual.notifications import Notification, Notify
from textual.widgets import Tree

from core import NavigatorChoice, NavigatorRequest, TreeNavigator
from explorer.cli import explore
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.tui.app import ExplorerApp
from explorer.walk_settings import WalkSettings
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[3]
HANDBOOK_PATH = SAMPLES / "handbook.yaml"
HANDBOOK = load_corpus(HANDBOOK_PATH)
SCRIPTS = ROOT / "sample_corpora" / "scripts"
SIZE = (170, 56)


def built_nodes(tree: Tree) -> int:
    """How many corpus nodes a lazily built tree holds so far, counted through ``TreeNode.children``."""
    count, stack = 0, list(tree.root.children)
    while stack:
        node = stack.pop()
        count += node.data is not None  # a "more children" row holds no corpus id
        stack.extend(node.children)
    return count


async def wait_for(pilot, predicate: Callable[[], bool], timeout: float = 30.0) -> None:
    """Wait until ``predicate()`` holds; ``timeout`` only stops a hang, it is no promise of speed."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting on the app")
        await pilot.pause(0.02)
    await pilot.pause()


async def resize(pilot, size: tuple[int, int]) -> None:
    """The terminal resized to ``size`` in the same app (a story's second size: one app start, not two), and the
    screen on top laid out at it. Textual takes a resize a beat later (it gathers a burst of them), so this waits
    for the screen's size, then for what that size made its widgets post (their ``Resize``); a screen under a
    dialog is laid out at once too, a hidden one when it is shown again."""
    await pilot.resize_terminal(*size)
    await wait_for(pilot, lambda: tuple(pilot.app.screen.size) == size)


class Messages:
    """Every message the app dispatches, in order, as ``app.run_test(message_hook=messages)`` hands them over
    (Harlequin asserts through what its app posts): a test waits for one to come, e.g. the ``PromptReady`` a
    prompt posts once it has shown an error, instead of pausing."""

    def __init__(self) -> None:
        self.seen: list[Message] = []

    def __call__(self, message: Message) -> None:
        self.seen.append(message)

    def count(self, kind: type[Message]) -> int:
        """How many messages of ``kind`` were dispatched so far (a bubbling message counts once per node)."""
        return sum(isinstance(message, kind) for message in self.seen)


class Explorer(ExplorerApp):
    """The explorer, keeping every notification it raised in ``notes`` (Textual forgets one once its toast expires,
    which on a busy machine can be before a test looks)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.notes: list[Notification] = []

    def on_notify(self, event: Notify) -> None:
        self.notes.append(event.notification)


def make_app(query: str = "", model: str = "lexical:default", corpus=HANDBOOK, navigator: TreeNavigator | None = None,
             **kwargs) -> Explorer:
    options = {k: kwargs.pop(k) for k in ("max_nodes_visited", "max_depth", "on_failure") if k in kwargs}
    settings = WalkSettings(query, model, **options)
    return Explorer(corpus, settings, navigator=navigator or resolve_navigator(model), **kwargs)


def script(name: str) -> str:
    return f"script:{SCRIPTS / name}"


class Counting(TreeNavigator):
    """A navigator for tests: the lexical navigator's answers, counted."""

    def __init__(self) -> None:
        self.inner = resolve_navigator("lexical:default")
        self.calls = 0

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        self.calls += 1
        return self.inner.choose(request)  # type: ignore[return-value]


class Blocking(TreeNavigator):
    """A navigator for tests that ignores the walk's token: each call blocks until the test sets ``release``.

    ``inside`` is set while a call is blocked, ``left`` once one has returned; a minute without a release
    also returns, so a broken app fails its test instead of hanging it.
    """

    def __init__(self) -> None:
        self.inner = resolve_navigator("lexical:default")
        self.inside = threading.Event()
        self.release = threading.Event()
        self.left = threading.Event()

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        self.inside.set()
        self.release.wait(60)
        self.left.set()
        return self.inner.choose(request)  # type: ignore[return-value]


def hour_long_script(folder: Path) -> str:
    """A script navigator whose first decision takes an hour unless the walk's token trips first."""
    path = folder / "hour-long.yaml"
    path.write_text("decisions:\n  start: {select: [people-policies], delay: 3600}\n")
    return f"script:{path}"


async def evaluation_open(pilot, app: ExplorerApp):  # type: ignore[no-untyped-def]
    """``E``, Enter (the set beside the corpus), and every question walked: the evaluation screen."""
    from explorer.tui.evaluation_screen import EvaluationScreen
    from explorer.tui.screens.prompt import PromptScreen

    await pilot.press("escape", "E")
    await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
    screen = app.screen
    await wait_for(pilot, lambda: bool(screen.sides) and all(side.over for side in screen.sides.values()))
    return screen


async def typed_into_prompt(pilot, app: ExplorerApp, key: str, text: object) -> None:  # type: ignore[no-untyped-def]
    """``key`` opens a prompt; ``text`` replaces what it offers, and Enter gives it."""
    from explorer.tui.screens.prompt import PromptScreen

    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
    app.screen.query_one("#prompt-input").value = str(text)
    await pilot.press("enter")


def explorer_made_here(monkeypatch: pytest.MonkeyPatch) -> tuple[list[Explorer], list[TreeNavigator]]:
    """The explorer's command line run in this process: the app it makes (an :class:`Explorer`, which keeps its
    notes) is kept (in the first list) instead of run in a terminal, and each navigator it resolves (in the second)
    for the test to close, as the app leaves to its maker."""
    made: list[Explorer] = []
    resolved: list[TreeNavigator] = []
    explore_navigator_for = explore.navigator_for

    def navigator_for(*args: Any, **kwargs: Any) -> TreeNavigator:
        resolved.append(explore_navigator_for(*args, **kwargs))
        return resolved[-1]

    monkeypatch.setattr(explore, "navigator_for", navigator_for)
    monkeypatch.setattr(explore, "check_terminal", lambda: None)  # no terminal here: the test runs the app
    monkeypatch.setattr(explore, "run_quitting_on_signals", made.append)
    monkeypatch.setattr("explorer.tui.app.ExplorerApp", Explorer)  # the class the command line imports when it runs
    monkeypatch.setattr(gc, "freeze", lambda: None)  # what the explorer does to the process for a large corpus
    monkeypatch.setattr(gc, "callbacks", [])
    return made, resolved


async def cursor_to(pilot, node_id: str, find: str) -> None:  # type: ignore[no-untyped-def]
    """Put the tree's cursor on ``node_id`` as a person does: ``g``, ``find`` typed (one match), Enter."""
    from explorer.tui.screens.find import FindScreen
    from explorer.tui.widgets.walk_tree import WalkTree

    from .reading import text_at

    app = pilot.app
    await pilot.press("g")
    await wait_for(pilot, lambda: isinstance(app.screen, FindScreen))
    await pilot.press(*find)
    await wait_for(pilot, lambda: text_at(app.screen, "#find-count") == "1 match")
    await pilot.press("enter")
    tree = app.walk_screen.query_one(WalkTree)
    await wait_for(pilot, lambda: tree.cursor_id == node_id)
