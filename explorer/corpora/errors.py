"""The one error type of corpus loading: a clear, one-line message that says where and what to do."""

from __future__ import annotations

from pathlib import Path

from ..safe_text import visible


class CorpusError(ValueError):
    """A corpus (or question set) that cannot be loaded.

    ``str(error)`` is one line: ``FILE:LINE: what is wrong (node ID); what to do``.
    The file name and the message are untrusted text (a file may be named
    with a terminal escape sequence), so control, C1 and bidi characters in
    them are made visible (``\\x1b``). ``path``, ``line`` (1-based, or
    ``None``) and ``node`` (an id or a path in the tree, or ``None``) are kept
    as given for callers that point at the place.
    """

    def __init__(self, path: Path | str, message: str, *, line: int | None = None, node: str | None = None) -> None:
        self.path = Path(path)
        self.line = line
        self.node = node
        self.reason = visible(" ".join(message.split()))  # one line, whatever the message held
        shown = visible(str(self.path))
        where = f"{shown}:{line}" if line is not None else shown
        super().__init__(f"{where}: {self.reason}")
