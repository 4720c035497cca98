"""What a folder of Markdown holds: every subfolder and Markdown file under it, parents before their children, in
the order the loader reads them (sorted by name, case-insensitively); hidden ones left out, each folder read once,
and symlinks that lead out of the folder left out unless asked (:class:`FolderScan`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .errors import CorpusError
from .progress import Progress, Stage

__all__ = ["FOLDER_CONTENT_NAMES", "SUFFIXES", "FolderEntry", "FolderScan", "is_markdown"]

SUFFIXES = (".md", ".markdown")
# Checked in this order: a README is what a folder says about itself on GitHub, index.md on doc sites.
FOLDER_CONTENT_NAMES = ("readme.md", "readme.markdown", "index.md", "index.markdown")


@dataclass
class FolderEntry:
    """A folder or a Markdown file the scan found: ``parent`` and ``children`` are places in the scan's list,
    ``content_file`` a folder's README or index, ``kept`` whether it holds some Markdown."""

    path: Path
    rel: str
    parent: int | None
    is_folder: bool
    children: list[int] = field(default_factory=list)
    content_file: Path | None = None
    kept: bool = False


def is_markdown(name: str) -> bool:
    """Whether a file of this name is Markdown (``.md``, ``.markdown``, any case)."""
    return name.lower().endswith(SUFFIXES)


class FolderScan:
    """Every folder and Markdown file under ``root`` (hidden ones left out), parents before their children."""

    def __init__(self, root: Path, progress: Progress, follow_outside_links: bool) -> None:
        self.root = root
        self.real_root = root.resolve()
        self.progress = progress
        self.follow_outside_links = follow_outside_links
        self.notes: list[str] = []
        self.entries = [FolderEntry(root, ".", None, True)]
        self.files = 0

    def run(self) -> list[FolderEntry]:
        entries = self.entries
        seen = {self.real_root}
        reals = {0: self.real_root}  # each folder's real path, to tell where its symlinks lead
        pending = [0]
        self.progress.start(Stage.SCANNING)
        while pending:  # an explicit stack: folder depth is bounded only by the file system
            index = pending.pop()
            folder = entries[index]
            try:
                with os.scandir(folder.path) as listing:
                    children = sorted(
                        (entry for entry in listing if not entry.name.startswith(".")),
                        key=lambda entry: (entry.name.casefold(), entry.name),
                    )
            except OSError as exc:
                raise CorpusError(folder.path, f"cannot list this folder: {exc.strerror or exc}") from None
            files: dict[str, os.DirEntry[str]] = {}
            folders: dict[str, Path] = {}
            for child in children:
                real = reals[index] / child.name
                if child.is_symlink():
                    followed = self.follow(child, reals[index])
                    if followed is None:
                        continue
                    real = followed
                if is_markdown(child.name) and child.is_file():
                    files[child.name] = child
                elif child.is_dir():
                    if real in seen:
                        continue  # reached through a symlink already: read each folder once
                    seen.add(real)
                    folders[child.name] = real
            content = next(
                (f for name in FOLDER_CONTENT_NAMES for f in files.values() if f.name.casefold() == name), None
            )
            folder.content_file = Path(content.path) if content is not None else None
            for child in children:
                child_path = Path(child.path)
                if child.name in folders:
                    folder.children.append(len(entries))
                    pending.append(len(entries))
                    reals[len(entries)] = folders[child.name]
                    entries.append(FolderEntry(child_path, self.rel(child_path), index, True))
                elif child.name in files and files[child.name] is not content:
                    folder.children.append(len(entries))
                    entries.append(FolderEntry(child_path, self.rel(child_path), index, False))
            self.files += len(files)
            self.progress.tick(len(entries))
        self.progress.finish(len(entries))
        # Children always come after their parent in the list, so walking it backwards settles each
        # subfolder before its parent: a folder is kept when it has a content file or a kept child.
        for entry in reversed(entries):
            entry.kept = entry.kept or not entry.is_folder or entry.content_file is not None
            if entry.kept and entry.parent is not None:
                entries[entry.parent].kept = True
        return entries

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def follow(self, child: os.DirEntry[str], real_folder: Path) -> Path | None:
        """Where a symlink leads, or ``None`` when it is broken, loops, or leads out of the folder."""
        try:
            real = (real_folder / child.name).resolve(strict=True)
        except (OSError, RuntimeError):
            return None  # a broken or looping symlink: nothing to read there
        if self.follow_outside_links or real == self.real_root or real.is_relative_to(self.real_root):
            return real
        if is_markdown(child.name) or child.is_dir():
            self.notes.append(
                f"{self.rel(Path(child.path))} is a symlink out of the folder (to {real}); left out"
            )
        return None
