"""Loading corpora: YAML (our format), PageIndex tree JSON, Markdown and PDF, chosen by what the path is.

Import these names from here: :func:`load_corpus` (:mod:`.loading`), the
file readers every loader shares (:mod:`.files`), :class:`Corpus`
(:mod:`.model`), :class:`CorpusError` (:mod:`.errors`) and the progress a load
reports (:mod:`.progress`). The modules of the package import each other, never
this facade, so that the import contract in ``pyproject.toml`` sees every
dependency between them.
"""

from __future__ import annotations

from .errors import CorpusError
from .files import MISSING, check_corpus_path, check_utf8, decode_text, read_bytes, read_text
from .loading import JSON_SUFFIXES, MARKDOWN_SUFFIXES, PDF_SUFFIXES, YAML_SUFFIXES, load_corpus
from .model import Corpus
from .progress import CallbackFailed, Progress, ProgressCallback, Stage, collector_paused

__all__ = [
    "JSON_SUFFIXES",
    "MARKDOWN_SUFFIXES",
    "MISSING",
    "PDF_SUFFIXES",
    "YAML_SUFFIXES",
    "CallbackFailed",
    "Corpus",
    "CorpusError",
    "Progress",
    "ProgressCallback",
    "Stage",
    "check_corpus_path",
    "check_utf8",
    "collector_paused",
    "decode_text",
    "load_corpus",
    "read_bytes",
    "read_text",
]
