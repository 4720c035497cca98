"""Small inline trees and a recording navigator for the core tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from core import (
    HierarchyIndex,
    HierarchyMetadata,
    NavigatorChoice,
    NavigatorRequest,
    RetrievedDocument,
    TreeNavigator,
)

# A tree spec: a sequence of (id, children) pairs; children is the same shape.
Spec = Sequence[tuple[str, "Spec"]]


def documents(spec: Spec, source: str = "s", parent: str | None = None) -> list[RetrievedDocument]:
    """Depth-first documents for a spec; each node titled ``Title <id>`` and summarised ``About <id>``."""
    out: list[RetrievedDocument] = []
    for node_id, children in spec:
        metadata: dict[str, Any] = {
            HierarchyMetadata.ID: node_id,
            HierarchyMetadata.SOURCE: source,
            "reasoningTitle": f"Title {node_id}",
            "reasoningSummary": f"About {node_id}",
        }
        if parent is not None:
            metadata[HierarchyMetadata.PARENT_ID] = parent
        out.append(RetrievedDocument(f"content of {node_id}", node_id, 0.0, metadata))
        out.extend(documents(children, source, node_id))
    return out


def index(spec: Spec, source: str = "s") -> HierarchyIndex:
    return HierarchyIndex(documents(spec, source))


def leaf(node_id: str) -> tuple[str, Spec]:
    return (node_id, ())


def chain(prefix: str, length: int) -> HierarchyIndex:
    """A single path ``prefix0 > prefix1 > ...`` of ``length`` nodes, built without recursion."""
    docs = []
    for i in range(length):
        metadata = {HierarchyMetadata.ID: f"{prefix}{i}"}
        if i:
            metadata[HierarchyMetadata.PARENT_ID] = f"{prefix}{i - 1}"
        docs.append(RetrievedDocument("", f"{prefix}{i}", 0.0, metadata))
    return HierarchyIndex(docs)


Decision = Iterable[str] | NavigatorChoice | BaseException | Callable[[NavigatorRequest], Any] | object


class Recorder(TreeNavigator):
    """Answers from a table keyed by the current node's id (``"start"`` for the roots) and records requests.

    A value that is an exception is raised; a callable is called with the request.
    """

    def __init__(self, decisions: Mapping[str, Decision] | None = None, default: Decision = ()) -> None:
        self.decisions = dict(decisions or {})
        self.default = default
        self.requests: list[NavigatorRequest] = []

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> Any:
        self.requests.append(request)
        key = request.current.id if request.current is not None else "start"
        decision = self.decisions.get(key, self.default)
        if isinstance(decision, BaseException):
            raise decision
        if callable(decision):
            return decision(request)
        return decision

    @property
    def offered(self) -> list[tuple[str | None, tuple[str, ...], int]]:
        """(current id, candidate ids, remaining visits) for every request, in order."""
        return [
            (r.current.id if r.current else None, tuple(c.id for c in r.candidates), r.remaining_visits)
            for r in self.requests
        ]


class AllChildren(Recorder):
    """Selects every candidate, in order."""

    def __init__(self) -> None:
        super().__init__(default=lambda request: [c.id for c in request.candidates])


def ids(documents: Iterable[RetrievedDocument]) -> list[str]:
    return [d.id for d in documents]


def reasons(documents: Iterable[RetrievedDocument]) -> list[str]:
    return [d.metadata[HierarchyMetadata.STOP_REASON] for d in documents]
