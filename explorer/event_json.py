"""A walk's events as JSON and back: one dict per event, with an ``event`` kind (the lines of a trace, the events
of ``walk --json``). A best-first walk's fields (its policy, what each event changed in the frontier, the scores and
path scores) are written only when the walk has them, so a depth-first walk's JSON is as it always was; a dict
without them reads as depth-first. Reading checks every field and raises ``ValueError`` naming the bad one.

A best-first event says the frontier's change (``"joined"``: ``[id, path score]`` pairs, ``"left"``: ids; each only
when not empty), never the whole frontier: a walk's events are read in order by one :class:`EventReader`, which
keeps the walk's :class:`core.frontier.FrontierLog` so each event read gives its frontier after it as the walk's own
did. Events written before (trace format version 1) carried the whole frontier (``"frontier"``, absent when empty);
a reader of that version takes each event's change from the frontier before it and the frontier it carries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core import (
    CandidatesOffered,
    NavigatorChose,
    NavigatorFailed,
    NodeEntered,
    NodePath,
    NodeView,
    OnFailure,
    PathStopped,
    Policy,
    RetrievedDocument,
    StopReason,
    StopRecord,
    Transcript,
    WalkEvent,
    WalkFinished,
    WalkResult,
    WalkStarted,
)
from core.frontier import Frontier, FrontierLog
from core.policy import DEFAULT_ALPHA

from .safe_text import json_safe


def _view(view: NodeView | None) -> dict[str, str] | None:
    return None if view is None else {"id": view.id, "title": view.title, "summary": view.summary}


def _stop(record: StopRecord) -> dict[str, Any]:
    return {"reason": record.reason.value, "path": list(record.path), "branch": record.branch,
            "landed": record.landed, "detail": record.detail,
            **({"score": record.score} if record.score is not None else {})}


def _transcript(transcript: Transcript | None) -> list[list[str]] | None:
    return None if transcript is None else [[label, text] for label, text in transcript]


def _json_value(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_json_value(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def _document(document: RetrievedDocument) -> dict[str, Any]:
    return {"id": document.id, "content": document.content, "score": document.score,
            "metadata": {k: _json_value(v) for k, v in document.metadata.items()}}


def event_to_json(event: WalkEvent) -> dict[str, Any]:
    """A walk event as a JSON-ready dict with an ``event`` kind."""
    if isinstance(event, WalkStarted):
        return {"event": "walk_started", "query": event.query, "model": event.model,
                "max_nodes_visited": event.max_nodes_visited, "max_depth": event.max_depth,
                "sources": None if event.sources is None else list(event.sources),
                "on_failure": event.on_failure.value,
                **({"policy": event.policy.value, "alpha": event.alpha}
                   if event.policy is not Policy.DEPTH_FIRST else {})}
    if isinstance(event, CandidatesOffered):
        return {"event": "candidates_offered", "current": _view(event.current), "path": list(event.path),
                "candidates": [_view(c) for c in event.candidates], "remaining_visits": event.remaining_visits,
                "depth": event.depth, "chars_shipped": event.chars_shipped, **_change(event)}
    if isinstance(event, NavigatorChose):
        return {"event": "navigator_chose", "current": event.current, "selected": list(event.selected),
                "hallucinated": list(event.hallucinated), "rejected": list(event.rejected),
                "rationale": event.rationale, "usage": None if event.usage is None else json_safe(dict(event.usage)),
                "seconds": event.seconds, "transcript": _transcript(event.transcript),
                **({"scores": dict(event.scores)} if event.scores is not None else {}), **_change(event)}
    if isinstance(event, NavigatorFailed):
        return {"event": "navigator_failed", "current": event.current, "error": event.error,
                "policy": event.policy.value, "seconds": event.seconds, "transcript": _transcript(event.transcript)}
    if isinstance(event, NodeEntered):
        return {"event": "node_entered", "node": _view(event.node), "path": list(event.path), "depth": event.depth,
                "remaining_visits": event.remaining_visits, "visits_used": event.visits_used,
                **({"score": event.score} if event.score is not None else {}), **_change(event)}
    if isinstance(event, PathStopped):
        return {"event": "path_stopped", **_stop(event.record)}
    if isinstance(event, WalkFinished):
        result = event.result
        return {"event": "walk_finished", "documents": [_document(d) for d in result.documents],
                "stops": [_stop(s) for s in result.stops], "visits_used": result.visits_used,
                "navigator_calls": result.navigator_calls, "chars_shipped": result.chars_shipped,
                "failure": result.failure,
                **({"policy": result.policy.value, "alpha": result.alpha, "stand_in": result.stand_in}
                   if result.policy is not Policy.DEPTH_FIRST else {})}
    raise TypeError(f"not a walk event: {event!r}")


def _field(data: Mapping[str, Any], key: str) -> Any:
    if key not in data:
        raise ValueError(f"missing {key!r}")
    return data[key]


def _text(data: Mapping[str, Any], key: str) -> str:
    value = _field(data, key)
    if not isinstance(value, str):
        raise ValueError(f"{key!r} must be text, not {type(value).__name__}")
    return value


def _maybe_text(data: Mapping[str, Any], key: str) -> str | None:
    value = _field(data, key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key!r} must be text or null, not {type(value).__name__}")
    return value


def _whole(data: Mapping[str, Any], key: str, minimum: int = 0) -> int:
    value = _field(data, key)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{key!r} must be a whole number of at least {minimum}, not {value!r}")
    return value


def _seconds(data: Mapping[str, Any], key: str) -> float:
    value = _field(data, key)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError(f"{key!r} must be a number of seconds, not {value!r}")
    return float(value)


def _ids(values: Any, key: str = "ids") -> tuple[str, ...]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ValueError(f"{key!r} must be a list of ids")
    return tuple(values)


def _view_from(data: Any, key: str) -> NodeView | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ValueError(f"{key!r} must be a node (id, title, summary)")
    return NodeView(_text(data, "id"), _text(data, "title"), _text(data, "summary"))


def _usage(data: Mapping[str, Any]) -> dict[str, Any] | None:
    usage = _field(data, "usage")
    if usage is None:
        return None
    if not isinstance(usage, dict) or not all(isinstance(k, str) for k in usage):
        raise ValueError("'usage' must be a mapping of names to counts, or null")
    return usage


def _transcript_from(data: Mapping[str, Any]) -> Transcript | None:
    value = data.get("transcript")  # absent in traces saved before transcripts: none recorded
    if value is None:
        return None
    if not isinstance(value, list) or not all(
        isinstance(pair, list) and len(pair) == 2 and all(isinstance(part, str) for part in pair) for pair in value
    ):
        raise ValueError("'transcript' must be a list of [label, text] pairs of text, or null")
    return tuple((label, text) for label, text in value)


def _stop_from(data: Mapping[str, Any]) -> StopRecord:
    return StopRecord(StopReason(_text(data, "reason")), NodePath(_ids(_field(data, "path"), "path")),
                      _maybe_text(data, "branch"), _maybe_text(data, "landed"), str(data.get("detail", "")),
                      _maybe_number(data, "score"))


def _document_from(data: Any) -> RetrievedDocument:
    if not isinstance(data, dict) or not isinstance(data.get("metadata"), dict):
        raise ValueError("a document must have an id, content, score and metadata")
    metadata = dict(data["metadata"])
    if isinstance(metadata.get("hierarchyPath"), list):
        metadata["hierarchyPath"] = tuple(metadata["hierarchyPath"])
    score = _field(data, "score")
    if isinstance(score, bool) or not isinstance(score, int | float):
        raise ValueError("'score' must be a number")
    return RetrievedDocument(_text(data, "content"), _text(data, "id"), float(score), metadata)


def _records(data: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    values = _field(data, key)
    if not isinstance(values, list) or not all(isinstance(v, dict) for v in values):
        raise ValueError(f"{key!r} must be a list of objects")
    return values


def _maybe_number(data: Mapping[str, Any], key: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{key!r} must be a number, not {value!r}")
    return float(value)


def _result_policy_from(data: Mapping[str, Any]) -> dict[str, Any]:
    """A best-first result's policy, alpha and stand-in (none: depth-first)."""
    if "policy" not in data:
        return {}
    return {**_policy_from(data), "stand_in": _maybe_text(data, "stand_in")}


def _policy_from(data: Mapping[str, Any]) -> dict[str, Any]:
    """The policy and alpha a header or a ``walk_started`` event gives (none: depth-first, alpha 0.5)."""
    policy = Policy(data.get("policy", Policy.DEPTH_FIRST.value))
    alpha = data.get("alpha", DEFAULT_ALPHA)
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha <= 1:
        raise ValueError(f"'alpha' must be a number above 0 and at most 1, not {alpha!r}")
    return {"policy": policy, "alpha": float(alpha)}


def _change(event: CandidatesOffered | NavigatorChose | NodeEntered) -> dict[str, Any]:
    """A best-first event's change to the frontier: ``"joined"`` (``[[id, path score], ...]``, in the order they
    joined) and ``"left"`` (ids), each only when not empty (a depth-first event has neither)."""
    change: dict[str, Any] = {}
    if event.joined:
        change["joined"] = [[node, score] for node, score in event.joined]
    if event.left:
        change["left"] = list(event.left)
    return change


def _pairs(data: Mapping[str, Any], key: str) -> Frontier:
    """``[[id, path score], ...]`` under ``key`` (absent: none)."""
    pairs = data.get(key, [])
    if not isinstance(pairs, list) or not all(
            isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and not isinstance(p[1], bool)
            and isinstance(p[1], int | float) for p in pairs):
        raise ValueError(f"{key!r} must be a list of [id, path score] pairs")
    return tuple((node, float(score)) for node, score in pairs)


def _scores_from(data: Mapping[str, Any]) -> dict[str, float] | None:
    scores = data.get("scores")
    if scores is None:
        return None
    if not isinstance(scores, dict) or not all(
            isinstance(k, str) and not isinstance(v, bool) and isinstance(v, int | float) for k, v in scores.items()):
        raise ValueError("'scores' must be an object of ids and numbers")
    return {k: float(v) for k, v in scores.items()}


def event_from_json(data: Mapping[str, Any]) -> WalkEvent:
    """The walk event one dict describes, read alone (a best-first event's ``frontier`` then holds only what it says
    joined); a walk's events are read by one :class:`EventReader`. ``ValueError`` naming the bad field."""
    return EventReader().read(data)


class EventReader:
    """Reads one walk's events, in order, keeping its frontier's log (see the module's note).

    ``version`` is the trace format the events were written in: 1 carried each best-first event's whole frontier,
    2 (and ``walk --json`` now) its change.
    """

    def __init__(self, version: int = 2) -> None:
        self.version = version
        self._log: FrontierLog | None = None
        self._before: dict[str, float] = {}  # version 1: the frontier the last event carried

    def read(self, data: Mapping[str, Any]) -> WalkEvent:
        """The walk event ``data`` describes; ``ValueError`` naming the bad field."""
        if not isinstance(data, dict):
            raise ValueError("an event must be a JSON object")
        kind = data.get("event")
        if kind == "walk_started":
            event = _started(data)
            self._log = FrontierLog() if event.policy is not Policy.DEPTH_FIRST else None
            self._before = {}
            return event
        if kind == "candidates_offered":
            candidates = _field(data, "candidates")
            if not isinstance(candidates, list):
                raise ValueError("'candidates' must be a list of nodes")
            views = tuple(view for view in (_view_from(c, "candidates") for c in candidates) if view is not None)
            return CandidatesOffered(_view_from(_field(data, "current"), "current"),
                                     NodePath(_ids(_field(data, "path"), "path")), views,
                                     _whole(data, "remaining_visits"), _whole(data, "depth"),
                                     _whole(data, "chars_shipped"), *self._change(data))
        if kind == "navigator_chose":
            return NavigatorChose(_maybe_text(data, "current"), _ids(_field(data, "selected"), "selected"),
                                  _ids(_field(data, "hallucinated"), "hallucinated"),
                                  _ids(_field(data, "rejected"), "rejected"), _text(data, "rationale"), _usage(data),
                                  _seconds(data, "seconds"), _transcript_from(data), _scores_from(data),
                                  *self._change(data))
        if kind == "node_entered":
            node = _view_from(_field(data, "node"), "node")
            if node is None:
                raise ValueError("'node' must be a node")
            return NodeEntered(node, NodePath(_ids(_field(data, "path"), "path")), _whole(data, "depth"),
                               _whole(data, "remaining_visits"), _whole(data, "visits_used"),
                               _maybe_number(data, "score"), *self._change(data))
        return _other_event(data)

    def _change(self, data: Mapping[str, Any]) -> tuple[Frontier, tuple[str, ...], FrontierLog | None, int]:
        """An offer, answer or entry's change to the frontier, the walk's log and the event's mark in it."""
        if self.version < 2:
            joined, left = self._change_from_frontier(_pairs(data, "frontier"))
        else:
            joined = _pairs(data, "joined")
            left = _ids(data.get("left", []), "left")
        if self._log is None:
            if not joined and not left:
                return (), (), None, 0
            self._log = FrontierLog()  # a change with no walk_started before it: read it as best-first
        mark = self._log.record(joined, left) if joined or left else self._log.marks
        return joined, left, self._log, mark

    def _change_from_frontier(self, frontier: Frontier) -> tuple[Frontier, tuple[str, ...]]:
        """Version 1: what changed between the frontier the last event carried and ``frontier``. The nodes that
        joined come in the frontier's order, which keeps the order of joining among equal path scores."""
        if self._log is None and not frontier:
            return (), ()
        now = dict(frontier)
        left = tuple(node for node in self._before if node not in now)
        joined = tuple((node, score) for node, score in frontier if node not in self._before)
        self._before = now
        return joined, left


def _started(data: Mapping[str, Any]) -> WalkStarted:
    sources = _field(data, "sources")
    return WalkStarted(_text(data, "query"), _text(data, "model"), _whole(data, "max_nodes_visited", 1),
                       _whole(data, "max_depth"), None if sources is None else _ids(sources, "sources"),
                       OnFailure(_text(data, "on_failure")), **_policy_from(data))


def _other_event(data: Mapping[str, Any]) -> WalkEvent:
    """A failure, a stop or the end (none of them holds a frontier)."""
    kind = data.get("event")
    if kind == "navigator_failed":
        return NavigatorFailed(_maybe_text(data, "current"), _text(data, "error"), OnFailure(_text(data, "policy")),
                               _seconds(data, "seconds"), _transcript_from(data))
    if kind == "path_stopped":
        return PathStopped(_stop_from(data))
    if kind == "walk_finished":
        return WalkFinished(WalkResult(
            tuple(_document_from(d) for d in _records(data, "documents")),
            tuple(_stop_from(s) for s in _records(data, "stops")),
            _whole(data, "visits_used"), _whole(data, "navigator_calls"), _whole(data, "chars_shipped"),
            _maybe_text(data, "failure"), **_result_policy_from(data)))
    raise ValueError(f"unknown event kind {kind!r}")
