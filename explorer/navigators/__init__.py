"""The navigators that ship with the app, each a ``core.TreeNavigator`` registered under the
``core.tree_navigators`` entry points (see pyproject.toml): ``local:smollm2`` (and ``local:PATH.gguf``),
``lexical:``, ``semantic:``, ``script:PATH``, ``replay:PATH``, ``manual:``, ``openai:MODEL``, ``ollama:MODEL``,
``vllm:MODEL``, and ``py:MODULE:NAME`` (a navigator from the person's own code).

Import from here the one resolver (:func:`resolve_navigator`, :mod:`.resolver`), the rule for sharing a navigator
across threads, and the errors they raise (:mod:`.errors`). The package's modules import each other, never this
facade, so that the import contract in ``pyproject.toml`` sees every dependency between them.
"""

from __future__ import annotations

from .errors import NavigatorConfigError, NavigatorNeedsAPerson, NavigatorReadsAFile
from .resolver import files_read_by, resolve_navigator, shared_across_threads

__all__ = [
    "SUGGESTED_MODELS",
    "NavigatorConfigError",
    "NavigatorNeedsAPerson",
    "NavigatorReadsAFile",
    "files_read_by",
    "resolve_navigator",
    "shared_across_threads",
]

SUGGESTED_MODELS = (
    "local:smollm2",
    "lexical:default",
    "lexical:strict",
    "lexical:wide",
    "semantic:default",
    "semantic:hybrid",
    "manual:",
    "openai:gpt-4o-mini",
    "ollama:llama3.1",
)
