"""``python -m explorer.cli.serve_session [the explorer's options]``: the process behind one browser tab.

It is the explorer (``reasoning-explorer [CORPUS] [options]``), plus one duty: end when the server that
started it is gone. The server stops its sessions itself when it closes normally, but a server that is
killed outright cannot; its sessions would idle on for ever, each holding its memory. This module stays
small on purpose: it runs once per tab, so it must not import the web server.
"""

from __future__ import annotations

import os
import signal
import threading
import time

POLL = 0.5  # seconds between looks at the parent
GRACE = 5.0  # seconds a clean quit may take before the process ends without one


def watch_parent(parent: int) -> None:
    """Quit once ``parent`` is no longer this process's parent (it died, and the process was adopted)."""
    while os.getppid() == parent:
        time.sleep(POLL)
    os.kill(os.getpid(), signal.SIGTERM)  # Textual's web driver turns SIGTERM into a clean quit
    time.sleep(GRACE)
    os._exit(1)


def main() -> None:
    threading.Thread(target=watch_parent, args=(os.getppid(),), name="serve-parent-watch", daemon=True).start()
    from .main import entry

    entry()


if __name__ == "__main__":
    main()
