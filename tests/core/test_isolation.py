"""core is a library with no UI: importing it loads neither Textual, Rich nor the explorer."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest


@pytest.mark.process
def test_importing_core_loads_no_ui():
    code = (
        "import sys, core\n"
        "from core import *\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'explorer', 'yaml', 'httpx')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"


def test_all_lists_exactly_the_public_names_of_core():
    import core

    public = {name for name, value in vars(core).items()
              if not name.startswith("_") and not isinstance(value, types.ModuleType)}  # not its submodules
    assert len(core.__all__) == len(set(core.__all__))  # no name listed twice
    assert set(core.__all__) == public  # every listed name exists, and every public name is listed
