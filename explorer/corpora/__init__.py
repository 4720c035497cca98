"""Loading corpora: YAML (our format), PageIndex tree JSON and Markdown, chosen by what the path is."""

from __future__ import annotations

from pathlib import Path

from .errors import CorpusError
from .model import Corpus

YAML_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIXES = (".json",)
MARKDOWN_SUFFIXES = (".md", ".markdown")


def load_corpus(path: str | Path) -> Corpus:
    """Load a corpus by path, choosing the reader by what the path is.

    ``.yaml``/``.yml``: the YAML corpus format; ``.json``: PageIndex tree
    JSON; ``.md``/``.markdown``: one Markdown file; a folder: its Markdown
    files. Every failure is a :class:`CorpusError` with one clear line.
    """
    path = Path(path)
    if path.is_dir():
        from .markdown_corpus import read_markdown

        return read_markdown(path)
    if not path.exists():
        raise CorpusError(path, "no such file or folder; give a .yaml, .json or .md file, or a folder of .md files")
    suffix = path.suffix.lower()
    if suffix in YAML_SUFFIXES:
        from .yaml_corpus import read_yaml_corpus

        return read_yaml_corpus(path)
    if suffix in JSON_SUFFIXES:
        from .pageindex import read_pageindex

        return read_pageindex(path)
    if suffix in MARKDOWN_SUFFIXES:
        from .markdown_corpus import read_markdown

        return read_markdown(path)
    raise CorpusError(
        path, f"unknown corpus type {suffix or '(no suffix)'!r}; use .yaml/.yml, .json (PageIndex) or .md, or a folder"
    )


def read_text(path: Path) -> tuple[str, bytes]:
    """The file's text (UTF-8, a BOM dropped) and its bytes; a CorpusError when it cannot be read."""
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise CorpusError(path, "is a folder, not a file") from None
    except OSError as exc:
        raise CorpusError(path, f"cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CorpusError(path, f"not UTF-8 text (byte {exc.start}); save the file as UTF-8", line=line) from None
    return text, data


__all__ = ["Corpus", "CorpusError", "load_corpus", "read_text"]
