"""Where a file the explorer writes may go: the one rule for every output, on the command line and on the screen.

An output never replaces a file that is read in the same session or command: the corpus (or a Markdown file
inside a corpus folder, which the corpus reads), a question set, a trace or span file opened, a navigator's own
file (a ``script:`` or ``replay:`` file, a ``py:`` navigator's source, a local model, a prompt file named by
``system=`` or ``prompt=``), or another output of the same command. "The same" is the same file once symlinks are
resolved, or the same file through a hard link. Appending to a file that is read is allowed only where that is
what is asked, and no code path here does it: ``K`` appends to a question set through its own writer
(:mod:`explorer.corpora.questions`).

Every refusal is one line that names the output, what it would have replaced, and what to do. The file is then
written by :func:`explorer.atomic_file.write_atomically` (whole or not at all).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .atomic_file import unwritable

MARKDOWN_SUFFIXES = (".md", ".markdown")
"""A corpus folder reads the files with these suffixes under it (``explorer.corpora.loading`` says the same)."""


@dataclass(frozen=True, slots=True)
class Read:
    """A file (or a corpus folder) that is read: what it is, for the message (``"the corpus"``), and its path."""

    what: str
    path: Path

    @classmethod
    def of(cls, what: str, path: str | Path | None) -> Read | None:
        """A :class:`Read`, or ``None`` when nothing is read (``path`` is ``None`` or empty)."""
        return cls(what, Path(path).expanduser()) if path else None


@dataclass(frozen=True, slots=True)
class Output:
    """A file to be written: what names it (``"--trace"``, ``"the trace"``), and its path."""

    name: str
    path: Path


def same_file(a: Path, b: Path) -> bool:
    """One file, once symlinks are resolved (``a`` need not exist yet), or one file through a hard link."""
    try:
        return os.path.realpath(a) == os.path.realpath(b) or (a.exists() and b.exists() and os.path.samefile(a, b))
    except (OSError, ValueError):
        return False


def _among_markdown_of(path: Path, folder: Path) -> bool:
    """``path`` is a Markdown file under the corpus ``folder``: one of the files it reads, or one it would read."""
    try:
        if not folder.is_dir():
            return False
        inside = os.path.realpath(path).startswith(os.path.join(os.path.realpath(folder), ""))
    except (OSError, ValueError):
        return False
    return inside and path.suffix.lower() in MARKDOWN_SUFFIXES


def overwrites(output: Output, reads: Iterable[Read | None], others: Iterable[Output] = ()) -> str | None:
    """Why writing ``output`` would destroy what is read or another output, in one line (``None``: it would not)."""
    path = output.path
    for other in others:
        if same_file(path, other.path):
            return (f"{other.name} {other.path} and {output.name} {path} are one file; give each output its own "
                    "file")
    for read in reads:
        if read is None:
            continue
        if same_file(path, read.path):
            return (f"{output.name} {path} is {read.what} ({read.path}); an output must not overwrite an input: "
                    "choose another file")
        if _among_markdown_of(path, read.path):
            return (f"{output.name} {path} is a Markdown file inside {read.what} ({read.path}), which reads it; "
                    "choose a file outside it")
    return None


def refused(output: Output, reads: Iterable[Read | None], *, doing: str, example: str,
            others: Iterable[Output] = ()) -> str | None:
    """Why ``output`` must not be written, in one line, or ``None``: it would replace what is read or another output
    (:func:`overwrites`), or it cannot be written at all (:func:`explorer.atomic_file.unwritable`: no folder, a
    folder, a pipe...). ``doing`` says what the file is for (``save the trace``), ``example`` a name to suggest."""
    return overwrites(output, reads, others) or unwritable(output.path, doing, example)
