"""Documents: what a corpus holds and what a walk returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final


class HierarchyMetadata:
    """The metadata keys the hierarchy and the walk read and write."""

    ID: Final = "hierarchyId"
    PARENT_ID: Final = "hierarchyParentId"
    SOURCE: Final = "hierarchySource"
    STOP_REASON: Final = "hierarchyStopReason"
    PATH: Final = "hierarchyPath"
    DEPTH: Final = "hierarchyDepth"


@dataclass(frozen=True, slots=True)
class RetrievedDocument:
    """A piece of content with an id, a score and read-only metadata.

    ``metadata`` is stored as a read-only copy of the mapping passed in (a
    shallow copy: mutating the caller's dict afterwards changes nothing here).
    Documents compare by value; they hash by content, id and score, so equal
    documents hash alike.
    """

    content: str
    id: str
    score: float = 0.0
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))

    def __hash__(self) -> int:
        return hash((self.content, self.id, self.score))

    def __reduce__(self) -> tuple[Any, ...]:
        # A mappingproxy cannot be pickled; rebuild from a plain dict instead.
        return (RetrievedDocument, (self.content, self.id, self.score, dict(self.metadata)))

    def with_metadata(self, score: float | None = None, **extra: Any) -> RetrievedDocument:
        """A copy with ``extra`` added to the metadata (and the score replaced when given)."""
        merged = dict(self.metadata)
        merged.update(extra)
        return RetrievedDocument(self.content, self.id, self.score if score is None else score, merged)
