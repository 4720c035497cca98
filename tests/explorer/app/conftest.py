"""The fixtures the explorer's tests share: navigators resolved and closed with the test, and the OpenAI-compatible
model that answers by the system message it is sent (:func:`.llm_stub.by_system`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from core import TreeNavigator
from explorer.navigators import resolve_navigator
from explorer.navigators.folders import Folders
from explorer.navigators.openai_compat import OPENAI_API_KEY_ENV, OPENAI_BASE_URL_ENV

from ..http_stub import StubServer
from .llm_stub import by_system


@pytest.fixture
def resolved() -> Iterator[Callable[[str], TreeNavigator]]:
    """Resolves the navigators a test hands the app, and closes them when the test ends: the app leaves closing a
    navigator to whoever made it, and an open client's request thread outliving this test fails every test of the
    OpenAI-compatible navigator that runs after it."""
    made: list[TreeNavigator] = []

    def resolve(model: str) -> TreeNavigator:
        made.append(resolve_navigator(model))
        return made[-1]

    yield resolve
    for navigator in made:
        close = getattr(navigator, "close", None)
        if callable(close):
            close()


@pytest.fixture
def variant_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubServer]:
    """The model that answers by the system message it is sent, with the explorer pointed at it."""
    with StubServer(respond=by_system) as stub:
        monkeypatch.setenv(OPENAI_API_KEY_ENV, "sk-test-variants")
        monkeypatch.setenv(OPENAI_BASE_URL_ENV, stub.url)
        yield stub


@pytest.fixture
def folders(tmp_path: Path) -> Folders:
    """The folders an explorer is handed (``make_app(..., folders=folders)``): no response cache, and its prompt
    variants kept under this test's folder (``tmp_path / "prompts"``)."""
    return Folders(None, tmp_path / "prompts")
