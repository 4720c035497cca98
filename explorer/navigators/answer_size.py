"""How many ids one answer may hold: enough for every candidate offered, and the junk beyond bounded.

An LLM's answer is cut here as it is read (:mod:`.llm.answer`); so is a ``py:`` navigator's, a ``script:`` file's and
a walk rebuilt from spans, which had no bound: 100,000 ids took a walk 33 s and 506 MB, and held the explorer for
12 s at 1,000. The ids past the bound are never looked at, so they are neither checked nor recorded.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import replace
from typing import Final

from core import NavigatorChoice

MIN_IDS_KEPT: Final = 100
IDS_PER_CANDIDATE: Final = 3


def ids_kept(candidates: int) -> int:
    """How many of the ids in one answer are kept: enough for every candidate, and the junk beyond bounded."""
    return max(MIN_IDS_KEPT, IDS_PER_CANDIDATE * candidates)


def capped(choice: NavigatorChoice | Iterable[str], candidates: int) -> NavigatorChoice | Iterable[str]:
    """``choice`` with at most :func:`ids_kept` ids (an iterable is read only that far); what is no iterable of
    ids (``None``, a number, a bare ``str``) is left for ``core`` to refuse in its own words."""
    most = ids_kept(candidates)
    if isinstance(choice, NavigatorChoice):
        return choice if len(choice.selected) <= most else replace(choice, selected=choice.selected[:most])
    if isinstance(choice, str) or not isinstance(choice, Iterable):
        return choice  # None, a number, a bare string: core says what is wrong with it, as before
    return tuple(itertools.islice(choice, most))
