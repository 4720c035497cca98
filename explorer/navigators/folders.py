"""Where a program keeps what its navigators write: the response cache and the prompt variants (:class:`Folders`).

A program reads them once, where it starts (the command line from ``--cache DIR``, ``--no-cache`` and
``--prompts DIR``, else :func:`user_folders`), and hands them to its walks in its
:class:`~explorer.walks.wiring.Wiring`: ``Wiring.wire`` gives an LLM navigator the cache folder, and the screen's
``W`` dialog keeps its variants in the prompts folder (``--prompts DIR``, else ``prompts`` beside the corpus, never
the cache's folder: clearing the cache loses no variant). Nothing here is set in the environment for another layer to
read: the user's own ``REASONING_EXPLORER_CACHE_DIR`` (and ``XDG_CACHE_HOME``) are only read, by
:func:`user_folders`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ..process import environment

__all__ = ["CACHE_DIR_ENV", "CACHE_OFF", "UNCACHED", "Folders", "NotAFolder", "folders_for", "not_a_folder",
           "user_cache",
           "user_folders"]

CACHE_DIR_ENV: Final = "REASONING_EXPLORER_CACHE_DIR"
"""The user's own setting of the response cache's folder (``off``: no cache)."""
CACHE_OFF: Final = "off"


class NotAFolder(ValueError):
    """A folder named for the cache or the prompt variants that is something else (a file): one line saying so."""


@dataclass(frozen=True, slots=True)
class Folders:
    """Where a program's navigators keep what they write: ``cache``, the LLM response cache (``None``: no cache),
    and ``prompts``, the prompt variants the ``W`` dialog keeps (``v2.system.txt``, ``v2.prompt.txt``; ``None``: in
    a ``prompts`` folder beside the corpus, :meth:`prompts_for`). Variants are the person's work: they are never
    kept in the cache's folder, which may be cleared at any time."""

    cache: Path | None
    prompts: Path | None = None

    def prompts_for(self, corpus_path: str | Path) -> Path:
        """Where the variants made on the corpus at ``corpus_path`` are kept: the folder named
        (``--prompts DIR``), else ``prompts`` beside the corpus."""
        return self.prompts if self.prompts is not None else Path(corpus_path).expanduser().resolve().parent / "prompts"


UNCACHED: Final = Folders(None)
"""No response cache (``--no-cache``); also what a navigator's check of its model reads, where the cache is none of
the model's settings."""


def not_a_folder(given: str, folder: Path, what: str = "the cache") -> str | None:
    """The one line that refuses ``folder`` as ``given`` names it (``--cache DIR``, the environment): it is there
    and is no folder. ``None`` when it is a folder, or not there yet (it is made when first written)."""
    if folder.exists() and not folder.is_dir():
        return f"{given}: not a folder; name a folder for {what} (it is made if need be)"
    return None


def _root(environ: Mapping[str, str]) -> Path:
    """``$XDG_CACHE_HOME`` (an absolute one: the spec says to ignore a relative one), else ``~/.cache``."""
    base = environ.get("XDG_CACHE_HOME", "").strip()
    return Path(base).expanduser() if base and Path(base).is_absolute() else Path.home() / ".cache"


def user_cache(environ: Mapping[str, str] | None = None) -> Path | None:
    """The user's response cache: ``$REASONING_EXPLORER_CACHE_DIR`` (``off``: none), else
    ``$XDG_CACHE_HOME/reasoning-explorer/llm`` (``~/.cache/reasoning-explorer/llm``). :class:`NotAFolder` when the
    variable names something that is no folder (as ``--cache`` refuses it)."""
    environ = environment().variables if environ is None else environ
    raw = environ.get(CACHE_DIR_ENV, "").strip()
    if not raw:
        return _root(environ) / "reasoning-explorer" / "llm"
    if raw.lower() == CACHE_OFF:
        return None
    folder = Path(raw).expanduser()
    problem = not_a_folder(f"{CACHE_DIR_ENV}={raw}", folder)
    if problem is not None:
        raise NotAFolder(problem)
    return folder


def folders_for(cache: Path | None) -> Folders:
    """``cache`` (``None``: no cache), and the prompt variants beside each corpus (:meth:`Folders.prompts_for`)."""
    return Folders(cache)


def user_folders(environ: Mapping[str, str] | None = None) -> Folders:
    """The user's folders, read from ``environ`` (default: this process's) once, where a program starts: the cache
    of :func:`user_cache`, and the prompt variants beside each corpus (:func:`folders_for`). :class:`NotAFolder` for
    a cache the environment names that is no folder."""
    return folders_for(user_cache(environ))
