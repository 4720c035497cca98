"""Documents: what a corpus holds and what a walk returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from .frozen import fast_constructor
from .metadata import FrozenMetadata


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
    shallow copy: mutating the caller's dict afterwards changes nothing here),
    a :class:`~core.metadata.FrozenMetadata`, which shares its keys with
    every document's that has the same keys in the same order (a million
    documents' metadata in under half the memory of a dict each).
    Documents compare by value; they hash by content, id and score, so equal
    documents hash alike.
    """

    content: str
    id: str
    score: float = 0.0
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "metadata", FrozenMetadata.of(self.metadata))

    def __hash__(self) -> int:
        return hash((self.content, self.id, self.score))

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from a plain dict, so a pickle holds nothing but builtins and this class.
        return (RetrievedDocument, (self.content, self.id, self.score, dict(self.metadata)))

    @staticmethod
    def frozen(content: str, id: str, score: float, metadata: FrozenMetadata) -> RetrievedDocument:
        """A document around metadata that is already frozen: kept as it is, not copied.

        Equal to ``RetrievedDocument(content, id, score, metadata)``, at about
        a third of the cost, for loaders that make a million documents.
        Raises ``TypeError`` when ``metadata`` is not a :class:`FrozenMetadata`.
        """
        if not isinstance(metadata, FrozenMetadata):
            raise TypeError(f"metadata must be a FrozenMetadata, not {type(metadata).__name__}")
        return _document(content, id, score, metadata)

    def with_metadata(self, score: float | None = None, **extra: Any) -> RetrievedDocument:
        """A copy with ``extra`` added to the metadata (and the score replaced when given)."""
        merged = dict(self.metadata)
        merged.update(extra)
        return RetrievedDocument(self.content, self.id, self.score if score is None else score, merged)


_document = fast_constructor(RetrievedDocument)
