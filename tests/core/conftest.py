from __future__ import annotations

import itertools
import sys

import pytest

from .plugins import Plugins

_groups = itertools.count()


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    """A folder on sys.path for fake distributions, and a group name no other test uses."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    installed = Plugins(root, f"test.tree_navigators_{next(_groups)}")
    yield installed
    installed.cleanup()
    sys.path_importer_cache.pop(str(root), None)
