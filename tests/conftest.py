"""What every test shares: no test reads or writes the user's response cache (a test that wants a cache gives
its own folder, with ``REASONING_EXPLORER_CACHE_DIR`` or ``--cache``). Set in the environment, so the commands a
test runs as subprocesses inherit it too."""

from __future__ import annotations

import os

os.environ["REASONING_EXPLORER_CACHE_DIR"] = "off"
