"""Walks in the tracing tools people use: each walk as OpenTelemetry spans, with the OpenInference conventions.

Arize Phoenix, Langfuse and any other OpenTelemetry backend show a walk sent
here as one trace:

- one ``RETRIEVER`` span for the walk, named after its query: ``input.value``
  is the query, the settings are attributes (``reasoning_explorer.*`` and a
  ``metadata`` JSON), the landed documents are ``retrieval.documents.N.document.*``
  with the navigator's own score where it has one (:mod:`explorer.navigators.scored`;
  none is made up) and their stop reason, path, depth and how they were chosen
  in each document's metadata; every node entered and every stop is a span
  event (``enter``, ``stop: leaf``...); a failed walk, or one where a decision
  failed, has an error status; under ``eval``, what the evaluation made of the
  question (:class:`QuestionFacts`);
- one span per offer and its decision, as the walk's tree: the first under
  the walk's span, every other under the decision that chose its node.
  ``LLM`` kind for a decision an LLM answered (``openai:``, ``ollama:``, or
  one whose transcript names its ``provider``), with the transcript's
  ``system`` and ``user`` entries as ``llm.input_messages``, its ``answer`` as
  ``llm.output_messages``, its ``parameters`` as ``llm.invocation_parameters``
  and the usage of a live call as ``llm.token_count.*``; ``TOOL`` kind for the
  other navigators; ``CHAIN`` kind for a decision no navigator made (forced by
  a person, replayed from the walk a fork came from, the ``manual:``
  navigator). A decision answered without a call says how in its name
  (``choose under billing (forced)``). The offer is the ``input.value``, the
  decision the ``output.value``; ids never offered are an ``unoffered id``
  event each; a failure sets an error status.

Times come from the walk: each event is stamped when the session pulled it
and a decision span ends when its answer arrived and starts ``seconds``
(the navigator's own time) before. Without stamps (:meth:`WalkTelemetry.export_walk`
on a history), the decisions are laid end to end from the walk's start.

The spans go to an OTLP/HTTP endpoint (``--otlp-endpoint``, or the
``REASONING_EXPLORER_OTLP_ENDPOINT`` variable; ``/v1/traces`` is added unless
given; ``OTEL_EXPORTER_OTLP_HEADERS`` carries a backend's key, in headers,
never in spans), and/or to a file of OTLP/JSON lines (``--otlp-file``, one
``ExportTraceServiceRequest`` per walk, ids in hex, as the OTLP file format
says, escaped as trace files are: C1 and bidi characters as ``\\uXXXX``). A
walk is sent when it is over, in one request (:mod:`explorer.walks.otlp_http`),
which may take :data:`EXPORT_TIMEOUT_SECONDS` in all, whatever the endpoint
does, so closing never waits longer either. An endpoint that fails (down,
refusing, redirecting, asking to retry later, resetting, dripping) never
breaks the walk: what happened is reported once, in one escaped line, and
the endpoint is not tried again in this run, so a long ``eval`` is slowed
once at most. No key is ever in a span: transcripts never hold one, and the
value of any known secret variable is masked in every attribute.

UI-free: nothing here imports Textual.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import urlsplit, urlunsplit

from google.protobuf.json_format import MessageToDict
from openinference.semconv.resource import ResourceAttributes
from openinference.semconv.trace import (
    DocumentAttributes,
    MessageAttributes,
    OpenInferenceMimeTypeValues,
    OpenInferenceSpanKindValues,
    SpanAttributes,
)
from opentelemetry import trace as otel_trace
from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import OTELResourceDetector, Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, SpanProcessor, TracerProvider
from opentelemetry.trace import Status, StatusCode
from opentelemetry.util.types import AttributeValue

from core import (
    CandidatesOffered,
    HierarchyMetadata,
    NavigatorChose,
    NavigatorFailed,
    NodeEntered,
    NodeView,
    PathStopped,
    ReasoningRAGStrategy,
    RetrievedDocument,
    StopRecord,
    WalkEvent,
    WalkFinished,
)

from .. import __version__
from ..ending import WalkEnd
from ..masking import Secrets
from ..navigators.answered import Answered, answered_by
from ..navigators.forcing import ForcingNavigator
from ..navigators.scored import scores_in
from ..safe_text import escape_json, one_line, visible
from ..trace import TraceHeader
from .otlp_http import OtlpHttpSender

if TYPE_CHECKING:
    from .evaluation import QuestionOutcome
    from .session import SessionEnded, WalkSession

__all__ = [
    "ENDPOINT_ENV",
    "EXPORT_TIMEOUT_SECONDS",
    "EvaluationSpans",
    "QuestionFacts",
    "TelemetryConfigError",
    "WalkTelemetry",
    "miss_reason_of",
    "traces_url",
]

ENDPOINT_ENV = "REASONING_EXPLORER_OTLP_ENDPOINT"
TRACES_PATH = "/v1/traces"
EXPORT_TIMEOUT_SECONDS = 2.0
"""How long one walk's export may take, retries included, before the endpoint counts as failed."""
SERVICE_NAME = "reasoning-explorer"
LLM_PROVIDERS = {"openai:": "openai", "ollama:": "ollama"}
"""Model prefixes of the navigators that call an LLM, and the provider each names when its answer does not say."""
PROVIDER_LABEL = "provider"
"""An LLM decision's transcript pair naming what really answered (``llama.cpp``, ``vllm``...): it wins over the
prefix, since ``openai:`` speaks to any server with the OpenAI API."""
PARAMETERS_LABEL = "parameters"
"""An LLM decision's transcript pair holding the invocation parameters sent, as one line of JSON."""
ROOT_NAME_CHARS = 60
"""A walk's span is named after its query, cut to this many characters."""
PERSON_PREFIXES = ("manual:",)
INPUT_ROLES = {"system": "system", "user": "user"}
OUTPUT_ROLES = {"answer": "assistant", "assistant": "assistant"}
MAX_CANDIDATES_SHOWN = 100
"""An offer lists at most this many candidates in its span (a wide one has thousands); the count is always there."""
A = "reasoning_explorer."
"""The prefix of this project's own attributes."""

Report = Callable[[str], None]


class TelemetryConfigError(ValueError):
    """An endpoint or file that cannot be used: one line saying what to give instead."""


# -- configuration -----------------------------------------------------------------------------------


def traces_url(endpoint: str, *, name: str = "--otlp-endpoint") -> str:
    """The OTLP/HTTP traces URL for ``endpoint``: ``/v1/traces`` added unless the path ends with it."""
    text = endpoint.strip()
    if visible(text) != text:  # no HTTP client sends it; and shown raw, it would steer the terminal
        raise TelemetryConfigError(f"{name} '{visible(text)}' holds a control or invisible character; give the "
                                   "collector's plain OTLP/HTTP address")
    try:
        parts = urlsplit(text)
    except ValueError:  # e.g. an unclosed IPv6 bracket, ``http://[::1``
        parts = urlsplit("")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TelemetryConfigError(
            f"{name} {endpoint!r} is not an http(s) address; give the collector's OTLP/HTTP address, e.g. "
            "http://127.0.0.1:6006 (Phoenix) or http://127.0.0.1:4318 (an OpenTelemetry collector)"
        )
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        raise TelemetryConfigError(f"{name} {endpoint!r} has a port that is not a number") from None
    path = parts.path.rstrip("/")
    if not path.endswith(TRACES_PATH):
        path += TRACES_PATH
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def _shown(url: str) -> str:
    """``url`` without any user or password in it, for messages."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _stderr_report(message: str) -> None:
    import sys

    print(f"{SERVICE_NAME}: warning: {message}", file=sys.stderr, flush=True)


# -- span attributes ---------------------------------------------------------------------------------


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _plain(value: Any) -> Any:
    """A metadata value as JSON would carry it (tuples as lists, anything odd as text)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


class _Attributes:
    """Builds one span's (or event's) attributes, masking every text; ``None`` values are left out."""

    def __init__(self, secrets: Secrets) -> None:
        self.secrets = secrets
        self.values: dict[str, AttributeValue] = {}

    def text(self, value: str) -> str:
        return self.secrets.mask(value)

    def set(self, key: str, value: Any) -> None:
        if value is None:
            return
        if isinstance(value, str):
            self.values[key] = self.text(value)
        elif isinstance(value, bool | int | float):
            self.values[key] = value
        elif isinstance(value, tuple | list) and all(isinstance(v, str) for v in value):
            self.values[key] = [self.text(v) for v in value]
        else:
            self.values[key] = self.text(_json(_plain(value)))

    def json(self, key: str, value: Any, mime_key: str | None = None) -> None:
        self.values[key] = self.text(_json(_plain(value)))
        if mime_key is not None:
            self.values[mime_key] = OpenInferenceMimeTypeValues.JSON.value


def _view(view: NodeView | None) -> dict[str, str] | None:
    return None if view is None else {"id": view.id, "title": view.title, "summary": view.summary}


def _stop(record: StopRecord) -> dict[str, Any]:
    return {"reason": record.reason.value, "path": list(record.path), "branch": record.branch,
            "landed": record.landed, "detail": record.detail}


def _pair(transcript: Sequence[tuple[str, str]], label: str) -> str | None:
    """The text of the first ``label`` pair of a transcript, if any."""
    return next((text for name, text in transcript if name == label), None)


def _json_object(text: str | None) -> dict[str, Any] | None:
    """``text`` read as a JSON object, or ``None``."""
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


@dataclass(frozen=True)
class _Llm:
    """What an LLM decision talked to: the model's name and the provider."""

    model: str
    provider: str


def _llm(model: str, transcript: Sequence[tuple[str, str]]) -> _Llm | None:
    """The LLM behind a decision: a ``provider`` pair in its transcript, else the navigator's prefix; ``None`` when
    no LLM answered it."""
    provider = _pair(transcript, PROVIDER_LABEL)
    prefix = next((p for p in LLM_PROVIDERS if model.startswith(p)), None)
    if prefix is not None:
        return _Llm(model[len(prefix):], provider or LLM_PROVIDERS[prefix])
    if provider is not None:
        return _Llm(model.partition(":")[2] or model, provider)
    return None


def _kind(model: str, how: Answered, llm: _Llm | None) -> OpenInferenceSpanKindValues:
    if how in (Answered.FORCED, Answered.REPLAYED) or model.startswith(PERSON_PREFIXES):
        return OpenInferenceSpanKindValues.CHAIN
    if llm is not None:
        return OpenInferenceSpanKindValues.LLM
    return OpenInferenceSpanKindValues.TOOL


def _root_name(query: str) -> str:
    """The walk's span name: its query on one line, cut to :data:`ROOT_NAME_CHARS`."""
    text = " ".join(query.split())
    if not text:
        return "reasoning walk"
    return text if len(text) <= ROOT_NAME_CHARS else text[: ROOT_NAME_CHARS - 1] + "…"


def _messages(attributes: _Attributes, key: str, messages: Sequence[tuple[str, str]]) -> None:
    for number, (role, content) in enumerate(messages):
        attributes.set(f"{key}.{number}.{MessageAttributes.MESSAGE_ROLE}", role)
        attributes.set(f"{key}.{number}.{MessageAttributes.MESSAGE_CONTENT}", content)


def _count(usage: Mapping[str, Any], name: str) -> int | None:
    value = usage.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class _Decision:
    """One offer and what answered it (``None``: the walk ended before an answer), with their event numbers."""

    offer_seq: int
    offer: CandidatesOffered
    answer_seq: int | None
    answer: NavigatorChose | NavigatorFailed | None


def _decisions(events: Sequence[WalkEvent]) -> list[_Decision]:
    found: list[_Decision] = []
    pending: tuple[int, CandidatesOffered] | None = None
    for seq, event in enumerate(events, start=1):
        if isinstance(event, CandidatesOffered):
            if pending is not None:
                found.append(_Decision(*pending, None, None))
            pending = (seq, event)
        elif isinstance(event, NavigatorChose | NavigatorFailed) and pending is not None:
            found.append(_Decision(*pending, seq, event))
            pending = None
    if pending is not None:
        found.append(_Decision(*pending, None, None))
    return found


def _how(decision: _Decision, forced: frozenset[int], replayed: frozenset[int]) -> Answered:
    """How a decision was answered: as the caller says (a session knows what it forced and replayed), else as its
    transcript says (:mod:`explorer.navigators.answered`)."""
    if decision.answer_seq in forced:
        return Answered.FORCED
    if decision.answer_seq in replayed:
        return Answered.REPLAYED
    return answered_by(decision.answer.transcript) if decision.answer is not None else Answered.LIVE


def _choosers(decisions: Sequence[_Decision]) -> dict[str, tuple[_Decision, int]]:
    """For each id a decision chose: that decision, and the id's place in its answer (1: named first)."""
    found: dict[str, tuple[_Decision, int]] = {}
    for decision in decisions:
        if isinstance(decision.answer, NavigatorChose):
            for rank, node in enumerate(decision.answer.selected, start=1):
                found.setdefault(node, (decision, rank))
    return found


def _document_score(node: str, choosers: Mapping[str, tuple[_Decision, int]], hows: Mapping[int, Answered],
                    model: str) -> tuple[float | None, dict[str, Any]]:
    """A landed document's score — the navigator's own, from the decision that chose it — and what the document's
    metadata says of it: ``score_kind`` (``bm25``, ``cosine similarity``...; ``order`` for an LLM, which ranks
    without scoring, ``rank`` being its place; ``unknown`` when nothing scored it), the ``rank``, the node where
    it was chosen (``chosen_at``, ``None``: among the roots) and how that decision was answered."""
    chosen = choosers.get(node)
    if chosen is None:
        return None, {"score_kind": "unknown"}
    decision, rank = chosen
    answer = decision.answer
    how = hows[decision.offer_seq]
    facts: dict[str, Any] = {"rank": rank, "chosen_at": decision.offer.current.id if decision.offer.current else None,
                             "answered": how.value}
    transcript = tuple(answer.transcript or ()) if answer is not None else ()
    scores = scores_in(transcript) if how is not Answered.FORCED else None
    if scores is not None and node in scores.by_id:
        return scores.by_id[node], {"score_kind": scores.kind, **facts}
    if how is not Answered.FORCED and _llm(model, transcript) is not None:
        return None, {"score_kind": "order", **facts}
    return None, {"score_kind": "unknown", **facts}


def _landed_documents(events: Sequence[WalkEvent]) -> list[RetrievedDocument]:
    """The walk's landed documents: its result, or, for a walk that did not finish, what its stops landed."""
    for event in reversed(events):
        if isinstance(event, WalkFinished):
            return list(event.result.documents)
    documents = []
    for event in events:
        landed = event.record.landed if isinstance(event, PathStopped) else None
        if isinstance(event, PathStopped) and landed is not None:
            record = event.record
            landed_path = tuple(record.path)
            documents.append(RetrievedDocument("", landed, ReasoningRAGStrategy.SELECTED_SCORE, {
                HierarchyMetadata.STOP_REASON: record.reason.value, HierarchyMetadata.PATH: landed_path,
                HierarchyMetadata.DEPTH: max(len(landed_path) - 1, 0)}))
    return documents


def _timeline(events: Sequence[WalkEvent], times: Sequence[int] | None, now: int) -> list[int]:
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


# -- OTLP/JSON ---------------------------------------------------------------------------------------


def _hex_ids(value: Any) -> Any:
    """Proto JSON writes bytes in base64; the OTLP JSON format wants trace and span ids in hex."""
    if isinstance(value, dict):
        return {k: (base64.b64decode(v).hex() if k in ("traceId", "spanId", "parentSpanId") and isinstance(v, str)
                    else _hex_ids(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_hex_ids(v) for v in value]
    return value


def otlp_json(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """``spans`` as one OTLP/JSON ``ExportTraceServiceRequest`` (lowerCamelCase, enums as numbers, hex ids)."""
    request = encode_spans(spans)
    data: dict[str, Any] = _hex_ids(MessageToDict(request, use_integers_for_enums=True))
    return data


# -- the exporter ------------------------------------------------------------------------------------


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


class WalkTelemetry:
    """Sends each walk it is given as OpenTelemetry spans to ``endpoint`` (OTLP/HTTP) and/or ``file`` (OTLP/JSON lines).

    ``file`` is created (emptied) now and gets one line per walk. ``report``
    receives each problem once, as one line (default: stderr). Safe to use
    from several threads (``eval --jobs``): walks are sent one at a time.
    """

    def __init__(
        self,
        endpoint: str | None = None,
        file: str | Path | None = None,
        *,
        timeout: float = EXPORT_TIMEOUT_SECONDS,
        report: Report | None = None,
    ) -> None:
        self.url = traces_url(endpoint) if endpoint is not None else None
        self.file = Path(file) if file is not None else None
        self.report = report or _stderr_report
        self.session_id = uuid.uuid4().hex
        """Groups the walks of one run (an eval, an explorer session) in backends that show sessions."""
        self._lock = threading.Lock()
        self._endpoint_failed = False
        self._file_failed = False
        self._reported: set[str] = set()
        self._report_lock = threading.Lock()
        self._evaluations: list[EvaluationSpans] = []
        self._handle: TextIO | None = None
        if self.file is not None:
            try:
                self._handle = self.file.open("w", encoding="utf-8")
            except OSError as exc:
                raise TelemetryConfigError(
                    f"cannot write spans to {self.file}: {exc.strerror or exc}; give a file in a writable folder"
                ) from None
        self._sender = OtlpHttpSender(self.url, deadline=timeout) if self.url is not None else None
        self._collector = _Collector()
        resource = (Resource.create()
                    .merge(Resource({"service.name": SERVICE_NAME, "service.version": __version__,
                                     ResourceAttributes.PROJECT_NAME: SERVICE_NAME}))
                    .merge(OTELResourceDetector().detect()))  # OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME win
        self._provider = TracerProvider(resource=resource, span_limits=SpanLimits(
            max_span_attributes=100_000, max_events=100_000, max_event_attributes=1_000))
        self._provider.add_span_processor(self._collector)
        self._tracer = self._provider.get_tracer("explorer.walks.telemetry", __version__)

    @classmethod
    def from_options(
        cls,
        endpoint: str | None,
        file: str | None,
        *,
        environ: Mapping[str, str] | None = None,
        report: Report | None = None,
    ) -> WalkTelemetry | None:
        """The telemetry the command line asks for (``endpoint`` falls back to ``REASONING_EXPLORER_OTLP_ENDPOINT``),
        or ``None`` when it asks for none. Raises :class:`TelemetryConfigError` for a bad address or file."""
        env = os.environ if environ is None else environ
        name = "--otlp-endpoint"
        if endpoint is None and env.get(ENDPOINT_ENV, "").strip():
            endpoint, name = env[ENDPOINT_ENV], ENDPOINT_ENV
        if endpoint is None and file is None:
            return None
        if endpoint is not None:
            traces_url(endpoint, name=name)
        if file is not None:
            folder = Path(file).expanduser().parent
            if not folder.is_dir():
                raise TelemetryConfigError(f"cannot write spans to {file}: no folder {folder}")
        return cls(endpoint, Path(file).expanduser() if file is not None else None, report=report)

    # -- a walk's spans ------------------------------------------------------------------------------

    def spans_for(
        self,
        header: TraceHeader,
        events: Sequence[WalkEvent],
        end: WalkEnd | str,
        error: str | None = None,
        *,
        forced: Iterable[int] = (),
        replayed: Iterable[int] = (),
        times: Sequence[int] | None = None,
        name: str = "",
        question: QuestionFacts | None = None,
    ) -> list[ReadableSpan]:
        """The spans of one walk: the walk's ``RETRIEVER`` span, and one span per offer as the walk's tree.

        The walk's span is named after its query; it is ``ERROR`` when the
        walk failed or a decision failed (a walk that went on after a failure,
        ``--on-failure partial``), ``OK`` when it finished, unset when it was
        cancelled. The first offer's span is its child; every later offer's
        span is the child of the decision that chose its node (the trace's
        tree is the walk's: billing → refunds → refund delivery). A decision
        answered without a call says how in its name (``choose under billing
        (forced)``); ids it named that were never offered are flagged on its
        span, with an event each and a count.

        ``forced`` and ``replayed`` number (1-based) the decisions a person
        forced and those replayed from another walk (the decisions'
        transcripts may say so too: :mod:`explorer.navigators.answered`);
        ``times`` stamps each event (ns since the epoch); ``name`` names the walk
        (``walk 2 · fork of walk 1...``); ``question`` is what an evaluation made
        of it (:class:`QuestionFacts`).
        """
        secrets = Secrets.from_environment()
        now = time.time_ns()
        clock = _timeline(events, times, now)
        start = clock[0] if clock else now
        finish = max(clock[-1] if clock else now, start)
        end = WalkEnd(end)
        decisions = _decisions(events)
        forced_seqs, replayed_seqs = frozenset(forced), frozenset(replayed)
        hows = {d.offer_seq: _how(d, forced_seqs, replayed_seqs) for d in decisions}

        walk = _Attributes(secrets)
        self._walk_attributes(walk, header, events, decisions, hows, end, error, name, question)
        root = self._tracer.start_span(secrets.mask(_root_name(header.query)), context=Context(),
                                       attributes=walk.values, start_time=start)  # a trace of its own
        chosen_in: dict[str, Context] = {}  # each chosen id -> the context of the decision that chose it
        for decision in decisions:
            node = decision.offer.current.id if decision.offer.current is not None else None
            parent = chosen_in.get(node) if node is not None else None
            span = self._decision_span(parent or otel_trace.set_span_in_context(root, Context()), header, decision,
                                       clock, finish, secrets, hows[decision.offer_seq])
            if isinstance(decision.answer, NavigatorChose):
                context = otel_trace.set_span_in_context(span, Context())
                for chosen in decision.answer.selected:
                    chosen_in.setdefault(chosen, context)
        for seq, event in enumerate(events):
            if isinstance(event, NodeEntered):
                entered = _Attributes(secrets)
                entered.set(A + "node.id", event.node.id)
                entered.set(A + "node.title", event.node.title)
                entered.set(A + "path", list(event.path))
                entered.set(A + "depth", event.depth)
                entered.set(A + "remaining_visits", event.remaining_visits)
                root.add_event("enter", entered.values, timestamp=clock[seq])
            elif isinstance(event, PathStopped):
                record = event.record
                stop = _Attributes(secrets)
                stop.set(A + "stop.reason", record.reason.value)
                stop.set(A + "stop.path", list(record.path))
                stop.set(A + "stop.node", record.node)
                stop.set(A + "stop.branch", record.branch)
                stop.set(A + "stop.landed", record.landed)
                stop.set(A + "stop.detail", record.detail or None)
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

    def _walk_attributes(self, walk: _Attributes, header: TraceHeader, events: Sequence[WalkEvent],
                         decisions: Sequence[_Decision], hows: Mapping[int, Answered], end: WalkEnd,
                         error: str | None, name: str, question: QuestionFacts | None) -> None:
        walk.set(SpanAttributes.OPENINFERENCE_SPAN_KIND, OpenInferenceSpanKindValues.RETRIEVER.value)
        walk.set(SpanAttributes.INPUT_VALUE, header.query)
        walk.set(SpanAttributes.INPUT_MIME_TYPE, OpenInferenceMimeTypeValues.TEXT.value)
        walk.set(SpanAttributes.SESSION_ID, self.session_id)
        settings = {"navigator": header.navigator, "max_nodes_visited": header.max_nodes_visited,
                    "max_depth": header.max_depth, "on_failure": header.on_failure.value,
                    "sources": None if header.sources is None else list(header.sources)}
        corpus = {"path": header.corpus_path, "source": header.corpus_source, "format": header.corpus_format,
                  "sha256": header.corpus_sha256}
        evaluation = question.as_json() if question is not None else None
        walk.json(SpanAttributes.METADATA, {**settings, "corpus": corpus, "walk": name or None,
                                            **({"eval": evaluation} if evaluation is not None else {})})
        walk.set(A + "navigator", header.navigator)
        walk.set(A + "max_nodes_visited", header.max_nodes_visited)
        walk.set(A + "max_depth", header.max_depth)
        walk.set(A + "on_failure", header.on_failure.value)
        walk.set(A + "sources", None if header.sources is None else list(header.sources))
        for key, value in corpus.items():
            walk.set(f"{A}corpus.{key}", value or None)
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
        walk.set(A + "forced_decisions", sum(how is Answered.FORCED for how in hows.values()))
        if question is not None:
            question.set_on(walk)
        documents = _landed_documents(events)
        choosers = _choosers(decisions)
        unscored: list[str] = []
        walk.set(A + "landed", [d.id for d in documents])
        for number, document in enumerate(documents):
            key = f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.{number}."
            metadata = document.metadata
            score, scoring = _document_score(document.id, choosers, hows, header.navigator)
            if score is None:
                unscored.append(document.id)
            walk.set(key + DocumentAttributes.DOCUMENT_ID, document.id)
            walk.set(key + DocumentAttributes.DOCUMENT_CONTENT, document.content)
            walk.set(key + DocumentAttributes.DOCUMENT_SCORE, score)  # left out when nothing scored it
            walk.json(key + DocumentAttributes.DOCUMENT_METADATA, {
                "stop_reason": metadata.get(HierarchyMetadata.STOP_REASON),
                "path": _plain(metadata.get(HierarchyMetadata.PATH)),
                "depth": metadata.get(HierarchyMetadata.DEPTH),
                **scoring,
                **{k: _plain(v) for k, v in metadata.items()
                   if k not in (HierarchyMetadata.STOP_REASON, HierarchyMetadata.PATH, HierarchyMetadata.DEPTH)},
            })
        walk.set(A + "score_unknown", unscored)
        walk.json(SpanAttributes.OUTPUT_VALUE, {"end": end.value, "landed": [d.id for d in documents],
                                                "error": error}, SpanAttributes.OUTPUT_MIME_TYPE)

    def _decision_span(self, context: Context, header: TraceHeader, decision: _Decision, clock: Sequence[int],
                       finish: int, secrets: Secrets, how: Answered) -> otel_trace.Span:
        offer, answer = decision.offer, decision.answer
        model = header.navigator
        transcript = tuple(answer.transcript or ()) if answer is not None else ()
        llm = _llm(model, transcript)
        kind = _kind(model, how, llm)
        offered_at = clock[decision.offer_seq - 1]
        if decision.answer_seq is None or answer is None:
            start, stop = offered_at, finish
        else:
            stop = clock[decision.answer_seq - 1]
            start = min(max(offered_at, stop - round(answer.seconds * 1e9)), stop)
        span = _Attributes(secrets)
        span.set(SpanAttributes.OPENINFERENCE_SPAN_KIND, kind.value)
        span.json(SpanAttributes.INPUT_VALUE, {
            "query": header.query, "current": _view(offer.current), "path": list(offer.path),
            "candidates": [_view(c) for c in offer.candidates[:MAX_CANDIDATES_SHOWN]],
            "candidates_not_shown": max(len(offer.candidates) - MAX_CANDIDATES_SHOWN, 0),
            "remaining_visits": offer.remaining_visits, "depth": offer.depth,
        }, SpanAttributes.INPUT_MIME_TYPE)
        node = offer.current.id if offer.current is not None else None
        span.set(A + "node.id", node)
        span.set(A + "node.title", offer.current.title if offer.current is not None else None)
        span.set(A + "path", list(offer.path))
        span.set(A + "depth", offer.depth)
        span.set(A + "remaining_visits", offer.remaining_visits)
        span.set(A + "candidates", len(offer.candidates))
        span.set(A + "chars_shipped", offer.chars_shipped)
        span.set(A + "navigator", model)
        span.set(A + "forced", how is Answered.FORCED)
        span.set(A + "replayed", how is Answered.REPLAYED)
        span.set(A + "answered_by", how.value if answer is not None else None)
        span.set(A + "answered", answer is not None)
        rest = list(transcript)
        if kind is OpenInferenceSpanKindValues.LLM and llm is not None:
            span.set(SpanAttributes.LLM_MODEL_NAME, llm.model)
            span.set(SpanAttributes.LLM_PROVIDER, llm.provider)
            span.set(SpanAttributes.LLM_SYSTEM, "openai")  # every LLM navigator speaks the OpenAI chat API
            parameters = _json_object(_pair(transcript, PARAMETERS_LABEL))
            if parameters is not None:
                span.json(SpanAttributes.LLM_INVOCATION_PARAMETERS, parameters)
            inputs = [(INPUT_ROLES[label], text) for label, text in transcript if label in INPUT_ROLES]
            outputs = [(OUTPUT_ROLES[label], text) for label, text in transcript if label in OUTPUT_ROLES]
            _messages(span, SpanAttributes.LLM_INPUT_MESSAGES, inputs)
            _messages(span, SpanAttributes.LLM_OUTPUT_MESSAGES, outputs)
            said = {*INPUT_ROLES, *OUTPUT_ROLES, PROVIDER_LABEL}
            if parameters is not None:
                said.add(PARAMETERS_LABEL)
            rest = [(label, text) for label, text in transcript if label not in said]
        elif kind is OpenInferenceSpanKindValues.TOOL:
            span.set(SpanAttributes.TOOL_NAME, model)
        if rest:
            span.json(A + "transcript", [list(pair) for pair in rest])
        status: Status | None = None
        if isinstance(answer, NavigatorChose):
            span.set(A + "selected", list(answer.selected))
            span.set(A + "hallucinated", list(answer.hallucinated))
            span.set(A + "hallucinated_count", len(answer.hallucinated))
            span.set(A + "rejected", list(answer.rejected))
            span.set(A + "rationale", answer.rationale)
            span.set(A + "seconds", answer.seconds)
            span.json(SpanAttributes.OUTPUT_VALUE, {"selected": list(answer.selected),
                                                    "hallucinated": list(answer.hallucinated),
                                                    "rationale": answer.rationale}, SpanAttributes.OUTPUT_MIME_TYPE)
            usage = answer.usage or {}
            # Tokens only for a live call: a cached, replayed or forced answer cost nothing now.
            if kind is OpenInferenceSpanKindValues.LLM and how is Answered.LIVE:
                prompt, completion = _count(usage, "prompt_tokens"), _count(usage, "completion_tokens")
                total = _count(usage, "total_tokens")
                if total is None and prompt is not None and completion is not None:
                    total = prompt + completion
                span.set(SpanAttributes.LLM_TOKEN_COUNT_PROMPT, prompt)
                span.set(SpanAttributes.LLM_TOKEN_COUNT_COMPLETION, completion)
                span.set(SpanAttributes.LLM_TOKEN_COUNT_TOTAL, total)
            if usage:
                span.json(A + "usage", dict(usage))
        elif isinstance(answer, NavigatorFailed):
            span.set(A + "error", answer.error)
            span.set(A + "policy", answer.policy.value)
            span.set(A + "seconds", answer.seconds)
            span.json(SpanAttributes.OUTPUT_VALUE, {"error": answer.error, "policy": answer.policy.value},
                      SpanAttributes.OUTPUT_MIME_TYPE)
            status = Status(StatusCode.ERROR, secrets.mask(answer.error))
        title = "choose among the roots" if node is None else f"choose under {node}"
        if answer is not None and how is not Answered.LIVE:
            title += f" ({how.value})"
        child = self._tracer.start_span(secrets.mask(title), context=context, attributes=span.values,
                                        start_time=start)
        if isinstance(answer, NavigatorChose):
            for unoffered in answer.hallucinated:
                event = _Attributes(secrets)
                event.set(A + "id", unoffered)
                event.set(A + "node.id", node)
                child.add_event("unoffered id", event.values, timestamp=stop)
        if status is not None:
            child.set_status(status)
        child.end(end_time=stop)
        return child

    # -- sending -------------------------------------------------------------------------------------

    def export_walk(
        self,
        header: TraceHeader,
        events: Sequence[WalkEvent],
        end: WalkEnd | str,
        error: str | None = None,
        *,
        forced: Iterable[int] = (),
        replayed: Iterable[int] = (),
        times: Sequence[int] | None = None,
        name: str = "",
        question: QuestionFacts | None = None,
    ) -> None:
        """Send one walk (see :meth:`spans_for`) wherever this telemetry sends; never raises for a failed send."""
        spans = self.spans_for(header, events, end, error, forced=forced, replayed=replayed, times=times, name=name,
                               question=question)
        with self._lock:
            self._send(spans)
            self._write(spans)

    def observe(self, session: WalkSession, ended: SessionEnded, events: Sequence[WalkEvent],
                times: Sequence[int]) -> None:
        """A :data:`explorer.walks.session.WalkObserver`: export ``session``'s walk now that it is over."""
        try:
            walk = _observed(session, ended, events, times)
        except Exception as exc:  # telemetry never breaks a walk: say it once and carry on
            self.report_problem("bug", f"tracing export failed: {type(exc).__name__}: {exc}")
            return
        self._export_observed(walk, None)

    def for_evaluation(self) -> EvaluationSpans:
        """The observer for an evaluation's walks, which sends each with what the evaluation made of it."""
        spans = EvaluationSpans(self)
        with self._report_lock:
            self._evaluations.append(spans)
        return spans

    def _export_observed(self, walk: _Observed, question: QuestionFacts | None) -> None:
        try:
            self.export_walk(walk.header, walk.events, walk.end, walk.error, forced=walk.forced,
                             replayed=walk.replayed, times=walk.times, name=walk.name, question=question)
        except Exception as exc:  # telemetry never breaks a walk: say it once and carry on
            self.report_problem("bug", f"tracing export failed: {type(exc).__name__}: {exc}")

    def _send(self, spans: Sequence[ReadableSpan]) -> None:
        if self._sender is None or self._endpoint_failed or not spans:
            return
        problem = self._sender.send(encode_spans(spans).SerializeToString())
        if problem is not None:
            self._endpoint_failed = True
            self.report_problem("endpoint", f"cannot send the walk's spans to {_shown(self.url or '')} "
                                      f"({problem}); walks go on, but no more spans go there in this run")

    def _write(self, spans: Sequence[ReadableSpan]) -> None:
        if self._handle is None or self._file_failed or not spans:
            return
        try:
            # Escaped as trace files are (explorer.safe_text): a corpus's C1 and bidi characters stay \uXXXX.
            text = Secrets.from_environment().mask(json.dumps(otlp_json(spans), ensure_ascii=False))
            self._handle.write(escape_json(text) + "\n")
            self._handle.flush()
        except OSError as exc:
            self._file_failed = True
            self.report_problem("file", f"cannot write spans to {self.file}: {exc.strerror or exc}; "
                                  "no more spans go there in this run")

    def report_problem(self, what: str, message: str) -> None:
        """Report ``message`` through ``report``, on one line with its controls made visible, unless a problem of
        the same kind (``what``: ``"endpoint"``, ``"file"``, ``"bug"``) was reported already."""
        with self._report_lock:
            if what in self._reported:
                return
            self._reported.add(what)
        with contextlib.suppress(Exception):  # a report that cannot be shown must not break the walk either
            self.report(one_line(message))  # it may hold what an endpoint sent, or a URL from the environment

    def close(self) -> None:
        """Send what an evaluation still holds, then close the file. It waits for a walk being sent, which its
        deadline bounds: never longer than ``timeout`` a walk."""
        with self._report_lock:
            evaluations, self._evaluations = self._evaluations, []
        for evaluation in evaluations:
            evaluation.flush()
        with self._lock:
            if self._sender is not None:
                self._sender.close()
            if self._handle is not None:
                with contextlib.suppress(OSError):
                    self._handle.close()
                self._handle = None
            self._provider.shutdown()

    def __enter__(self) -> WalkTelemetry:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


# -- walks as sessions and evaluations tell them -----------------------------------------------------


@dataclass(frozen=True)
class _Observed:
    """A walk a session has told of, ready to export."""

    header: TraceHeader
    events: tuple[WalkEvent, ...]
    end: WalkEnd
    error: str | None
    forced: tuple[int, ...]
    replayed: tuple[int, ...]
    times: tuple[int, ...]
    name: str


def _observed(session: WalkSession, ended: SessionEnded, events: Sequence[WalkEvent],
              times: Sequence[int]) -> _Observed:
    """What a session's observer is told, with the decisions it forced and replayed numbered."""
    navigator = session.navigator
    recorded = navigator.recorded if isinstance(navigator, ForcingNavigator) else {}
    forced, replayed = [], []
    for seq, event in enumerate(events, start=1):
        if isinstance(event, NavigatorChose | NavigatorFailed):
            if event.current in session.forced_nodes:
                forced.append(seq)
            elif event.current in recorded:
                replayed.append(seq)
    return _Observed(session.header(), tuple(events), ended.end, ended.error,
                     tuple(forced), tuple(replayed), tuple(times), session.history.name)


MISS_REASON = "miss_reason"
"""The outcome attribute that says why a question was missed, read when it exists (see :func:`miss_reason_of`)."""


def miss_reason_of(outcome: object) -> str | None:
    """Why the evaluation says a question was missed, as text, or ``None`` when its outcome does not say.

    The hook for the evaluation's miss reasons: a ``QuestionOutcome`` with a
    ``miss_reason`` attribute (text, an enum — its value is used — or anything
    whose ``str`` reads well) fills ``reasoning_explorer.eval.miss_reason``.
    """
    reason = getattr(outcome, MISS_REASON, None)
    if reason is None:
        return None
    value = getattr(reason, "value", reason)
    return str(value) if str(value) else None


@dataclass(frozen=True)
class QuestionFacts:
    """What an evaluation made of one walk, put on its walk span so that a backend can filter to the misses.

    Attributes ``reasoning_explorer.eval.question_id``, ``.expected``, ``.hit``
    and, for a miss, ``.missed`` (the first node of the best path to an expected
    node that the walk did not enter), ``.first_wrong_turn`` (its depth) and
    ``.miss_reason`` (when the evaluation gives one); the same under
    ``metadata``'s ``eval`` key, and the tags ``eval`` and ``hit`` or ``miss``.
    """

    question_id: str
    expected: tuple[str, ...]
    hit: bool
    missed: str | None = None
    first_wrong_turn: int | None = None
    miss_reason: str | None = None

    @classmethod
    def of(cls, outcome: QuestionOutcome) -> QuestionFacts:
        """The facts of one scored question (``explorer.walks.evaluation.QuestionOutcome``)."""
        hit = bool(outcome.hit)
        return cls(outcome.question.id, tuple(outcome.question.expect), hit,
                   None if hit else outcome.missed, None if hit else outcome.first_wrong_turn,
                   None if hit else miss_reason_of(outcome))

    def as_json(self) -> dict[str, Any]:
        return {"question_id": self.question_id, "expected": list(self.expected), "hit": self.hit,
                "missed": self.missed, "first_wrong_turn": self.first_wrong_turn, "miss_reason": self.miss_reason}

    def set_on(self, walk: _Attributes) -> None:
        for key, value in self.as_json().items():
            walk.set(f"{A}eval.{key}", value)
        walk.set(SpanAttributes.TAG_TAGS, ["eval", "hit" if self.hit else "miss"])


class EvaluationSpans:
    """An evaluation's walks, each sent once the evaluation has scored it, with its :class:`QuestionFacts`.

    Give :meth:`observe` to the evaluation as an observer and :meth:`scored`
    as its ``on_done``: a walk is held from its end until its score arrives
    (on the same thread, at once), then sent. A walk whose score never came
    (the run was interrupted) is sent without one when the telemetry closes.
    Made by :meth:`WalkTelemetry.for_evaluation`.
    """

    def __init__(self, telemetry: WalkTelemetry) -> None:
        self._telemetry = telemetry
        self._lock = threading.Lock()
        self._held: dict[int, _Observed] = {}

    def observe(self, session: WalkSession, ended: SessionEnded, events: Sequence[WalkEvent],
                times: Sequence[int]) -> None:
        """A :data:`explorer.walks.session.WalkObserver`: hold the walk until :meth:`scored` tells its score."""
        try:
            walk = _observed(session, ended, events, times)
        except Exception as exc:  # telemetry never breaks a walk
            self._telemetry.report_problem("bug", f"tracing export failed: {type(exc).__name__}: {exc}")
            return
        with self._lock:
            self._held[id(session.history)] = walk  # the history is the outcome's: the key the score comes with

    def scored(self, outcome: QuestionOutcome) -> None:
        """The evaluation's ``on_done``: send the walk of ``outcome`` with what the evaluation made of it."""
        with self._lock:
            walk = self._held.pop(id(outcome.history), None) if outcome.history is not None else None
        if walk is not None:
            self._telemetry._export_observed(walk, QuestionFacts.of(outcome))

    def flush(self) -> None:
        """Send every walk still held, without a score."""
        with self._lock:
            held, self._held = list(self._held.values()), {}
        for walk in held:
            self._telemetry._export_observed(walk, None)
