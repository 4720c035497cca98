"""The one error type of corpus loading: a clear, one-line message that says where and what to do."""

from __future__ import annotations

from pathlib import Path


class CorpusError(ValueError):
    """A corpus (or question set) that cannot be loaded.

    ``str(error)`` is one line: ``FILE:LINE: what is wrong (node ID); what to do``.
    ``path``, ``line`` (1-based, or ``None``) and ``node`` (an id or a path in
    the tree, or ``None``) are kept for callers that point at the place.
    """

    def __init__(self, path: Path | str, message: str, *, line: int | None = None, node: str | None = None) -> None:
        self.path = Path(path)
        self.line = line
        self.node = node
        self.reason = " ".join(message.split())  # one line, whatever the message held
        where = f"{self.path}:{line}" if line is not None else f"{self.path}"
        super().__init__(f"{where}: {self.reason}")
