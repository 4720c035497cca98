"""What a walk is run with: settable in the app and from the command line."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import PurePath

from core import OnFailure


@dataclass(frozen=True)
class WalkSettings:
    """Everything a walk is run with."""

    query: str
    model: str = "lexical:default"
    max_nodes_visited: int = 15
    max_depth: int = 6
    on_failure: OnFailure = OnFailure.THROW

    def but(self, **changes: object) -> WalkSettings:
        return replace(self, **changes)  # type: ignore[arg-type]

    @property
    def short_model(self) -> str:
        """The model with a file's folder left out: ``script:/a/b/case.yaml`` is ``script:case.yaml``."""
        kind, colon, rest = self.model.partition(":")
        if colon and ("/" in rest or "\\" in rest):
            return f"{kind}:{PurePath(rest).name}"
        return self.model

    def describe(self) -> str:
        """``lexical:default · budget 15 · depth limit 6 · on failure throw``."""
        return (f"{self.short_model} · budget {self.max_nodes_visited} · depth limit {self.max_depth} · "
                f"on failure {self.on_failure.value}")
