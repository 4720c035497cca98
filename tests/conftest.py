"""What every test shares.

- No test reads or writes the user's response cache (a test that wants a cache gives its own folder, with
  ``REASONING_EXPLORER_CACHE_DIR`` or ``--cache``). Set in the environment, so the commands a test runs as
  subprocesses inherit it too.
- No test reads or writes the user's data folder, where the explorer keeps its sessions: every test has its own
  ``XDG_DATA_HOME``, an empty temporary folder (:func:`own_data_folder`), which the commands it runs inherit too.
- No animation runs (``TEXTUAL_ANIMATIONS=none``, for the apps made here and the explorers a test starts): a
  scroll or a progress bar is where it ends at once, so what a test reads or a snapshot draws never depends on
  how far an animation got on a busy machine (a sweep's bar drawn at 90 % under load failed its snapshot).
- The markers of ``pyproject.toml`` (``process``, ``model``, ``browser``, ``pty``, ``slow``) say what a test needs;
  ``make test-fast`` leaves those out. Tests that hold one machine resource are put in one ``xdist_group``, so
  that under ``pytest -n`` (``--dist loadgroup``) they run one after the other on one worker: the bundled model's
  servers (each takes a core while it answers) and the served explorers (each a server process with sessions).
  A module whose tests share a module-scoped fixture is one group too, so that fixture is made once, not once
  per worker.
- The cyclic collector is kept to what the tests make (a worker runs hundreds of apps, and a full collection
  walked every object they left behind: a quarter of an app test's time). What a worker holds once it has
  collected its tests (modules, the sample corpora) is frozen; full collections come a tenth as often; and after
  each test Textual's method caches are emptied, which keep up to 1,024 dead widgets' render caches alive.
  ``charset_normalizer`` is imported first: imported while an app runs, its log handler would keep that app's
  captured ``stderr``, and the app with it, for the rest of the run.
- The sample corpora are read from one copy per run (:mod:`tests.samples`), made here in the first process before
  pytest-xdist starts its workers, which inherit where it is: a test id that names a sample's path is then the same
  on every worker (xdist refuses to run when its workers collect different ids).
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import textual.constants as textual_constants

os.environ["REASONING_EXPLORER_CACHE_DIR"] = "off"
os.environ["TEXTUAL_ANIMATIONS"] = "none"
textual_constants.TEXTUAL_ANIMATIONS = "none"  # read when Textual was imported (a plugin imports it first)

import tests.samples  # noqa: E402, F401  (the one copy of the sample corpora, made before the workers start)

with contextlib.suppress(ImportError):
    import charset_normalizer  # noqa: F401  (before any app runs: see the module's docstring)

FULL_COLLECTIONS_EVERY = 100
"""Young collections between two full ones (Python's default: 10)."""

_GROUPS = (("model", "local-model"), ("browser", "served"), ("pty", "terminal"))
"""A marker, and the group its tests run in, the first that applies."""


def _shares_a_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(defs and defs[-1].scope == "module" for defs in info.name2fixturedefs.values())


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (it names each test after its group)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        group = next((group for marker, group in _GROUPS if item.get_closest_marker(marker) is not None), None)
        if group is None and _shares_a_module_fixture(item):
            group = item.nodeid.split("::", 1)[0]
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(autouse=True)
def own_data_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's ``XDG_DATA_HOME``: an empty folder of its own, so that the explorer's sessions (kept under
    ``$XDG_DATA_HOME/reasoning-explorer/sessions`` by default) never land in the user's data folder."""
    folder = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    return folder


def pytest_collection_finish(session: pytest.Session) -> None:
    """What this process holds once its tests are collected lives as long as it: frozen, never walked again."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTIONS_EVERY)


@pytest.fixture(autouse=True)
def textual_method_caches_emptied() -> Iterator[None]:
    """After each test, Textual's caches on methods (``functools.lru_cache`` keyed by the instance) let go of the
    widgets of the apps it ran: one keeps up to 1,024 style caches with every line they rendered."""
    yield
    from textual.widgets import DataTable

    methods: list[object] = [getattr(DataTable, "_get_styles_to_render_cell", None)]
    with contextlib.suppress(ImportError):  # a private module (no public name): gone in a release, nothing to empty
        from textual._styles_cache import StylesCache

        methods.append(getattr(StylesCache, "get_inner_outer", None))
    for method in methods:
        clear = getattr(method, "cache_clear", None)
        if callable(clear):
            clear()
