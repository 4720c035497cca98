"""A loaded corpus: its hierarchy plus what the explorer shows about where it came from."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core import HierarchyIndex, HierarchyMetadata, ReasoningRAGStrategy, RetrievedDocument
from core.metadata import FrozenMetadata

from ..walk_settings import MapRef

TITLE = ReasoningRAGStrategy.NODE_TITLE_METADATA
SUMMARY = ReasoningRAGStrategy.NODE_SUMMARY_METADATA

# A Markdown heading cut for its title carries its length as written under this key (validate says so).
HEADING_LENGTH = "headingLength"

# Keys the loaders write on every node; a corpus's own metadata may not use them.
RESERVED_KEYS = frozenset(
    {
        HierarchyMetadata.ID,
        HierarchyMetadata.PARENT_ID,
        HierarchyMetadata.SOURCE,
        HierarchyMetadata.STOP_REASON,
        HierarchyMetadata.PATH,
        HierarchyMetadata.DEPTH,
        TITLE,
        SUMMARY,
    }
)


@dataclass(frozen=True)
class Corpus:
    """One loaded source.

    ``index`` holds one document per node; each document's metadata carries
    ``hierarchyId``, ``hierarchyParentId`` (absent on roots),
    ``hierarchySource``, ``reasoningTitle``, ``reasoningSummary`` and the
    node's own metadata. ``lines`` maps node ids to the line that defines them
    where the format has lines. ``sha256`` is the hash of the bytes read (for
    a folder, of every file's relative path and bytes, in sorted order), so a
    trace can tell whether it was made on this corpus. ``notes`` are what the
    loader left out and why (one line each, e.g. a symlink out of a Markdown
    folder), which ``validate`` reports as warnings. ``map``: the map variant applied to this copy of the corpus
    (:mod:`.map_variant`: titles and summaries changed by an overlay file; the corpus file is never touched), and
    ``unmapped`` the corpus as its file holds it; both ``None`` for a corpus as loaded.
    """

    path: Path
    format: str
    source: str
    title: str
    index: HierarchyIndex
    sha256: str
    lines: Mapping[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    map: MapRef | None = None
    unmapped: Corpus | None = field(default=None, repr=False, compare=False)

    @property
    def original(self) -> Corpus:
        """The corpus as its file holds it, with no map variant applied."""
        return self.unmapped if self.unmapped is not None else self

    def title_of(self, node_id: str) -> str:
        return str(self.index[node_id].metadata.get(TITLE, node_id))

    def find(self, text: str, limit: int) -> list[tuple[str, str]]:
        """Up to ``limit`` nodes as ``(id, title)`` whose title or id holds ``text`` (any case), in corpus order;
        a node whose id is exactly ``text`` comes first."""
        exact, needle = text.strip(), text.strip().casefold()
        found = [(exact, self.title_of(exact))] if exact in self.index else []
        for node_id in self.index.ids():
            if len(found) >= limit:
                break
            title = self.title_of(node_id)
            if node_id != exact and (needle in title.casefold() or needle in node_id.casefold()):
                found.append((node_id, title))
        return found

    def summary_of(self, node_id: str) -> str:
        return str(self.index[node_id].metadata.get(SUMMARY, ""))

    def where(self, node_id: str, *, full_path: bool = True) -> str:
        """``FILE:LINE`` where the node is defined, or just the file; with ``full_path`` false, the corpus's own
        name (``handbook.yaml:620``) instead of its path on this machine (a shared session shows no server path)."""
        line = self.lines.get(node_id)
        file = str(self.path) if full_path else self.path.name
        return f"{file}:{line}" if line else file


# The keys make_document writes after a node's own, in this order (a root has no parent key).
OUR_KEYS = (HierarchyMetadata.ID, HierarchyMetadata.SOURCE, TITLE, SUMMARY)
OUR_KEYS_WITH_PARENT = (*OUR_KEYS, HierarchyMetadata.PARENT_ID)


def make_document(
    node_id: str,
    *,
    source: str,
    parent: str | None,
    title: str,
    summary: str,
    content: str,
    metadata: dict[str, Any] | None = None,
) -> RetrievedDocument:
    """A node's document with the metadata every loader writes (own metadata first, ours on top).

    ``metadata`` is the node's own metadata; it is read, not kept. The
    document's metadata is built as a :class:`core.metadata.FrozenMetadata`
    straight from keys and values (a million nodes make that worth it).
    """
    ours = (node_id, source, title, summary) if parent is None else (node_id, source, title, summary, parent)
    keys = OUR_KEYS if parent is None else OUR_KEYS_WITH_PARENT
    # Theirs then ours; a key of ours they also give is replaced in its place, as a dict update would.
    frozen = FrozenMetadata(metadata).extended(keys, ours) if metadata else FrozenMetadata.from_values(keys, ours)
    return RetrievedDocument.frozen(content, node_id, 0.0, frozen)


def sha256_of_bytes(chunks: Iterable[bytes]) -> str:
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk)
    return digest.hexdigest()
