"""What a walk is run with: settable in the app and from the command line."""

from __future__ import annotations

from dataclasses import dataclass, replace

from core import OnFailure

from ..navigators.llm.options import short_model_id


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
        """The model with a file's folder left out, in the model and in its options: ``script:/a/b/case.yaml`` is
        ``script:case.yaml``, ``local:smollm2@system=/p/b.txt`` is ``local:smollm2@system=b.txt``."""
        return short_model_id(self.model)

    def describe(self) -> str:
        """``lexical:default · budget 15 · depth limit 6 · on failure throw``."""
        return (f"{self.short_model} · budget {self.max_nodes_visited} · depth limit {self.max_depth} · "
                f"on failure {self.on_failure.value}")
