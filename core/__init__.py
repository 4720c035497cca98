"""core — the reasoning walk runtime.

A navigator is shown the titles and summaries of a node's children and picks
branches to descend; the runtime bounds the walk (a visit budget and a depth
limit), checks every returned id against what was offered, records why each
path stopped and returns the landed nodes. It walks depth-first in the
navigator's order, or best-first by path score (:class:`Policy`). ``core``
imports no UI and bundles no navigator: providers are found through the
``core.tree_navigators`` entry points.
"""

from .cancellation import CancellationToken
from .config import RetrievalConfig, RetrievalConfigBuilder, Strategy
from .documents import HierarchyMetadata, RetrievedDocument
from .errors import (
    HierarchyError,
    RetrievalCancelled,
    RetrievalConfigError,
    RetrievalError,
    TreeNavigatorError,
)
from .events import (
    CandidatesOffered,
    Frontier,
    NavigatorChose,
    NavigatorFailed,
    NodeEntered,
    PathStopped,
    StopReason,
    StopRecord,
    WalkEvent,
    WalkFinished,
    WalkResult,
    WalkStarted,
)
from .hierarchy import HierarchyIndex
from .navigator import NavigatorChoice, NavigatorRequest, NodeView, Transcript, TreeNavigator, transcript_from
from .path import EMPTY_PATH, NodePath
from .policy import OnFailure, Policy
from .registry import TreeNavigatorRegistry
from .roles import (
    ActionSpec,
    ActionType,
    KnowledgeSource,
    KnowledgeType,
    Role,
    RoleRagBinding,
    action_spec,
    knowledge_source,
    retrieval,
)
from .views import NodeViews, Offer
from .walk import RAGContext, ReasoningRAGStrategy, drain

__all__ = [
    "EMPTY_PATH",
    "ActionSpec",
    "ActionType",
    "CancellationToken",
    "CandidatesOffered",
    "Frontier",
    "HierarchyError",
    "HierarchyIndex",
    "HierarchyMetadata",
    "KnowledgeSource",
    "KnowledgeType",
    "NavigatorChoice",
    "NavigatorChose",
    "NavigatorFailed",
    "NavigatorRequest",
    "NodeEntered",
    "NodePath",
    "NodeView",
    "NodeViews",
    "Offer",
    "OnFailure",
    "PathStopped",
    "Policy",
    "RAGContext",
    "ReasoningRAGStrategy",
    "RetrievalCancelled",
    "RetrievalConfig",
    "RetrievalConfigBuilder",
    "RetrievalConfigError",
    "RetrievalError",
    "RetrievedDocument",
    "Role",
    "RoleRagBinding",
    "StopReason",
    "StopRecord",
    "Strategy",
    "Transcript",
    "TreeNavigator",
    "TreeNavigatorError",
    "TreeNavigatorRegistry",
    "WalkEvent",
    "WalkFinished",
    "WalkResult",
    "WalkStarted",
    "action_spec",
    "drain",
    "knowledge_source",
    "retrieval",
    "transcript_from",
]
