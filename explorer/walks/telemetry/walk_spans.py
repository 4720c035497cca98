"""The spans of one walk: its ``RETRIEVER`` span, named after its query, and one span per offer as the walk's tree.

The walk's span has the query as ``input.value``, the settings as attributes
(``reasoning_explorer.*`` and a ``metadata`` JSON), the landed documents as
``retrieval.documents.N.document.*`` with the navigator's own score where it
has one (:mod:`.documents`), every node entered and every stop as a span
event (``enter``, ``stop: leaf``...), an error status for a failed walk or
one where a decision failed, and, under ``eval``, what the evaluation made of
the question (:class:`~.question_facts.QuestionFacts`). The first decision's
span (:mod:`.decision_span`) is its child, every other the child of the
decision that chose its node.

Times come from the walk: each event is stamped when the session pulled it;
without stamps, the decisions are laid end to end from the walk's start
(:func:`timeline`).
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import ParamSpec, TypeVar

from openinference.semconv.resource import ResourceAttributes
from openinference.semconv.trace import (
    DocumentAttributes,
    OpenInferenceMimeTypeValues,
    OpenInferenceSpanKindValues,
    SpanAttributes,
)
from opentelemetry import trace as otel_trace
from opentelemetry.context import Context
from opentelemetry.sdk.resources import OTELResourceDetector, Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, SpanProcessor, TracerProvider
from opentelemetry.trace import Status, StatusCode

from core import (
    HierarchyMetadata,
    NavigatorChose,
    NavigatorFailed,
    NodeEntered,
    PathStopped,
    Policy,
    WalkEvent,
    WalkFinished,
)

from ... import __version__
from ...ending import WalkEnd
from ...masking import Secrets
from ...process import environment
from ...trace import FinishedWalk, TraceHeader
from ...walk_settings import policy_fields
from ..decisions import Decision, chosen_by, decisions_of
from .attributes import A, Attributes, plain
from .config import attribute_lengths
from .decision_span import decision_span
from .documents import document_score, landed_documents
from .question_facts import QuestionFacts

__all__ = ["ROOT_NAME_CHARS", "SERVICE_NAME", "WalkTracer", "timeline"]

SERVICE_NAME = "reasoning-explorer"
ROOT_NAME_CHARS = 60
"""A walk's span is named after its query, cut to this many characters."""
TRACER_NAME = "explorer.walks.telemetry"
FRONTIER_VERSION = 2
"""How a best-first walk's spans say its frontier (``reasoning_explorer.frontier_version`` on the walk span): 2, the
change (each decision span the pairs that ``joined``, each ``enter`` event what ``left``); without it (version 1),
each carried the whole ``frontier``. A walk is read back from its decisions, so either reads."""
"""The instrumentation scope the spans carry: this package's name."""


_building = threading.local()
"""``on`` is set on a thread while it builds a walk's spans (:meth:`WalkTracer.spans_for`)."""

P = ParamSpec("P")
R = TypeVar("R")


def _building_spans(build: Callable[P, R]) -> Callable[P, R]:
    """``build`` with :data:`_building` set on its thread while it runs (the cut warnings it causes are left out)."""

    @functools.wraps(build)
    def building(*args: P.args, **kwargs: P.kwargs) -> R:
        was = getattr(_building, "on", False)
        _building.on = True
        try:
            return build(*args, **kwargs)
        finally:
            _building.on = was

    return building


def _not_a_cut(record: logging.LogRecord) -> bool:
    """Leaves out the SDK's warning for each attribute its limit cuts, in the spans this module builds only (on
    the thread building them): the cut is the documented limit at work, and a warning for each long attribute on
    stderr would break into the explorer's screen. Another program's spans, in the same process, keep theirs."""
    return not (getattr(_building, "on", False)
                and str(record.msg).startswith("String attribute value exceeds max length"))


class _Collector(SpanProcessor):
    """Keeps every ended span, by trace, until the walk it belongs to is sent."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spans: dict[int, list[ReadableSpan]] = {}

    def on_end(self, span: ReadableSpan) -> None:
        if span.context is None:
            return
        with self._lock:
            self._spans.setdefault(span.context.trace_id, []).append(span)

    def take(self, trace_id: int) -> list[ReadableSpan]:
        with self._lock:
            return self._spans.pop(trace_id, [])


class WalkTracer:
    """Makes the spans of walks: one tracer provider for a run, whose spans are kept by trace until their walk's are
    taken whole (:meth:`spans_for`). ``session_id`` groups the walks of the run. Each attribute's text is cut to
    the OpenTelemetry limits (:func:`~.config.attribute_lengths`: 32,768 characters unless
    ``OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`` says)."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        """Groups the walks of one run (an eval, an explorer session) in backends that show sessions."""
        self._collector = _Collector()
        resource = (Resource.create()
                    .merge(Resource({"service.name": SERVICE_NAME, "service.version": __version__,
                                     ResourceAttributes.PROJECT_NAME: SERVICE_NAME}))
                    .merge(OTELResourceDetector().detect()))  # OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME win
        logging.getLogger("opentelemetry.attributes").addFilter(_not_a_cut)  # added once, however many tracers
        event_length, span_length = attribute_lengths(environment().variables)  # a bad value: one line
        self._provider = TracerProvider(resource=resource, span_limits=SpanLimits(
            max_span_attributes=100_000, max_events=100_000, max_event_attributes=1_000,
            max_attribute_length=event_length, max_span_attribute_length=span_length))
        self._provider.add_span_processor(self._collector)
        self._tracer = self._provider.get_tracer(TRACER_NAME, __version__)

    @_building_spans
    def spans_for(self, walk: FinishedWalk, question: QuestionFacts | None = None) -> list[ReadableSpan]:
        """The spans of one walk, from its one record (the events and the header its trace holds): the walk's
        ``RETRIEVER`` span, and one span per offer as the walk's tree.

        The walk's span is named after its query; it is ``ERROR`` when the
        walk failed or a decision failed (a walk that went on after a failure,
        ``--on-failure partial``), ``OK`` when it finished, unset when it was
        cancelled. The first offer's span is its child; every later offer's
        span is the child of the decision that chose its node (the trace's
        tree is the walk's: billing → refunds → refund delivery). A decision
        answered without a call says how in its name (``choose under billing
        (forced)``); ids it named that were never offered are flagged on its
        span, with an event each and a count.

        The record's ``forced`` and ``replayed`` number the decisions a person
        forced and those replayed from another walk (the decisions'
        transcripts may say so too: :mod:`explorer.navigators.answered`);
        its ``times`` stamp each event; its ``name`` names the walk
        (``walk 2 · fork of walk 1...``); ``question`` is what an evaluation made
        of it (:class:`QuestionFacts`).
        """
        header, events, end, error = walk.header, walk.events, walk.end, walk.error
        secrets = Secrets.from_environment()
        now = time.time_ns()
        clock = timeline(events, walk.times or None, now)
        start = clock[0] if clock else now
        finish = max(clock[-1] if clock else now, start)
        decisions = decisions_of(events, walk.forced, walk.replayed)

        attributes = Attributes(secrets)
        _walk_attributes(attributes, self.session_id, header, events, decisions, end, error, walk.name, question)
        root = self._tracer.start_span(secrets.mask(_root_name(header.settings.query)), context=Context(),
                                       attributes=attributes.values, start_time=start)  # a trace of its own
        chosen_in: dict[str, Context] = {}  # each chosen id -> the context of the decision that chose it
        for decision in decisions:
            node = decision.offer.current.id if decision.offer.current is not None else None
            parent = chosen_in.get(node) if node is not None else None
            span = decision_span(self._tracer, parent or otel_trace.set_span_in_context(root, Context()), header,
                                 decision, clock, finish, secrets)
            if isinstance(decision.answer, NavigatorChose):
                context = otel_trace.set_span_in_context(span, Context())
                for chosen in decision.answer.selected:
                    chosen_in.setdefault(chosen, context)
        best_first = header.settings.policy is not Policy.DEPTH_FIRST
        for seq, event in enumerate(events):
            if isinstance(event, NodeEntered):
                entered = Attributes(secrets)
                entered.set(A + "node.id", event.node.id)
                entered.set(A + "node.title", event.node.title)
                entered.set(A + "path", list(event.path))
                entered.set(A + "depth", event.depth)
                entered.set(A + "remaining_visits", event.remaining_visits)
                if best_first:  # the node's path score, and what left the frontier: the node (frontier version 2)
                    entered.set(A + "score", event.score)
                    entered.json(A + "left", list(event.left))
                root.add_event("enter", entered.values, timestamp=clock[seq])
            elif isinstance(event, PathStopped):
                record = event.record
                stop = Attributes(secrets)
                stop.set(A + "stop.reason", record.reason.value)
                stop.set(A + "stop.path", list(record.path))
                stop.set(A + "stop.node", record.node)
                stop.set(A + "stop.branch", record.branch)
                stop.set(A + "stop.landed", record.landed)
                stop.set(A + "stop.detail", record.detail or None)
                stop.set(A + "stop.score", record.score)
                root.add_event(f"stop: {record.reason.value}", stop.values, timestamp=clock[seq])
        failure = next((d for d in decisions if isinstance(d.answer, NavigatorFailed)), None)
        if end is WalkEnd.FAILED:
            root.set_status(Status(StatusCode.ERROR, secrets.mask(error or "the walk failed")))
        elif failure is not None and isinstance(failure.answer, NavigatorFailed):
            where = "the roots" if failure.offer.current is None else failure.offer.current.id
            root.set_status(Status(StatusCode.ERROR, secrets.mask(
                f"the navigator failed at {where}: {failure.answer.error} (the walk went on: on failure "
                f"{failure.answer.policy.value})")))
        elif end is WalkEnd.FINISHED:
            root.set_status(Status(StatusCode.OK))
        root.end(end_time=finish)
        return self._collector.take(root.get_span_context().trace_id)

    def shutdown(self) -> None:
        """Shut the tracer provider down: no more spans."""
        self._provider.shutdown()


def _walk_attributes(walk: Attributes, session_id: str, header: TraceHeader, events: Sequence[WalkEvent],
                     decisions: Sequence[Decision], end: WalkEnd, error: str | None,
                     name: str, question: QuestionFacts | None) -> None:
    """The walk span's attributes: the query, the settings, the corpus and the map variant it was walked with (when
    it had one), how it ended, and its landed documents with their scores."""
    walk.set(SpanAttributes.OPENINFERENCE_SPAN_KIND, OpenInferenceSpanKindValues.RETRIEVER.value)
    walk.set(SpanAttributes.INPUT_VALUE, header.settings.query)
    walk.set(SpanAttributes.INPUT_MIME_TYPE, OpenInferenceMimeTypeValues.TEXT.value)
    walk.set(SpanAttributes.SESSION_ID, session_id)
    walked = header.settings
    settings = {"navigator": walked.model, "max_nodes_visited": walked.max_nodes_visited,
                "max_depth": walked.max_depth, "on_failure": walked.on_failure.value, **policy_fields(walked),
                "sources": None if header.sources is None else list(header.sources)}
    corpus = {"path": header.corpus_path, "source": header.corpus_source, "format": header.corpus_format,
              "sha256": header.corpus_sha256}
    evaluation = question.as_json() if question is not None else None
    mapped = {"map": header.map.to_json()} if header.map is not None else {}  # a walk with no map: as before
    walk.json(SpanAttributes.METADATA, {**settings, "corpus": corpus, **mapped, "walk": name or None,
                                        **({"eval": evaluation} if evaluation is not None else {})})
    walk.set(A + "navigator", header.settings.model)
    walk.set(A + "max_nodes_visited", header.settings.max_nodes_visited)
    walk.set(A + "max_depth", header.settings.max_depth)
    walk.set(A + "on_failure", header.settings.on_failure.value)
    if walked.policy is not Policy.DEPTH_FIRST:  # a walk span without them was walked depth-first
        walk.set(A + "walk_policy", walked.policy.value)
        walk.set(A + "alpha", walked.alpha)
        walk.set(A + "frontier_version", FRONTIER_VERSION)
    walk.set(A + "sources", None if header.sources is None else list(header.sources))
    for key, value in corpus.items():
        walk.set(f"{A}corpus.{key}", value or None)
    if header.map is not None:  # the map variant it was walked with: a setting like a prompt variant
        walk.set(A + "map.path", header.map.path)
        walk.set(A + "map.sha256", header.map.sha256)
    walk.set(A + "walk", name or None)
    walk.set(A + "end", end.value)
    walk.set(A + "error", error)
    finished = next((e for e in reversed(events) if isinstance(e, WalkFinished)), None)
    if finished is not None:
        result = finished.result
        walk.set(A + "visits_used", result.visits_used)
        walk.set(A + "navigator_calls", result.navigator_calls)
        walk.set(A + "chars_shipped", result.chars_shipped)
        walk.set(A + "failure", result.failure)
    unoffered = [node for d in decisions if isinstance(d.answer, NavigatorChose) for node in d.answer.hallucinated]
    walk.set(A + "hallucinated", unoffered)
    walk.set(A + "hallucinated_count", len(unoffered))
    walk.set(A + "forced_decisions", sum(d.forced for d in decisions))
    if question is not None:
        question.set_on(walk)
    documents = landed_documents(events)
    choosers = chosen_by(decisions)
    unscored: list[str] = []
    walk.set(A + "landed", [d.id for d in documents])
    for number, document in enumerate(documents):
        key = f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.{number}."
        metadata = document.metadata
        score, scoring = document_score(document.id, choosers, header.settings.model)
        if score is None:
            unscored.append(document.id)
        walk.set(key + DocumentAttributes.DOCUMENT_ID, document.id)
        walk.set(key + DocumentAttributes.DOCUMENT_CONTENT, document.content)
        walk.set(key + DocumentAttributes.DOCUMENT_SCORE, score)  # left out when nothing scored it
        walk.json(key + DocumentAttributes.DOCUMENT_METADATA, {
            "stop_reason": metadata.get(HierarchyMetadata.STOP_REASON),
            "path": plain(metadata.get(HierarchyMetadata.PATH)),
            "depth": metadata.get(HierarchyMetadata.DEPTH),
            **scoring,
            **{k: plain(v) for k, v in metadata.items()
               if k not in (HierarchyMetadata.STOP_REASON, HierarchyMetadata.PATH, HierarchyMetadata.DEPTH)},
        })
    walk.set(A + "score_unknown", unscored)
    walk.json(SpanAttributes.OUTPUT_VALUE, {"end": end.value, "landed": [d.id for d in documents],
                                            "error": error}, SpanAttributes.OUTPUT_MIME_TYPE)


def timeline(events: Sequence[WalkEvent], times: Sequence[int] | None, now: int) -> list[int]:
    """When each event happened (ns since the epoch): as stamped, else laid out from the navigator's seconds."""
    if times is not None and len(times) == len(events):
        return list(times)
    spent = [round(e.seconds * 1e9) if isinstance(e, NavigatorChose | NavigatorFailed) else 0 for e in events]
    clock = now - sum(spent)
    laid = []
    for cost in spent:
        clock += cost
        laid.append(clock)
    return laid


def _root_name(query: str) -> str:
    """The walk's span name: its query on one line, cut to :data:`ROOT_NAME_CHARS`."""
    text = " ".join(query.split())
    if not text:
        return "reasoning walk"
    return text if len(text) <= ROOT_NAME_CHARS else text[: ROOT_NAME_CHARS - 1] + "…"
