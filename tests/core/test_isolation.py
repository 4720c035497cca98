"""core is a library with no UI: importing it loads neither Textual, Rich nor the explorer."""

from __future__ import annotations

import subprocess
import sys


def test_importing_core_loads_no_ui():
    code = (
        "import sys, core\n"
        "from core import *\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'explorer', 'yaml', 'httpx')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_public_name_is_importable_from_core():
    import core

    for name in core.__all__:
        assert getattr(core, name) is not None, name
