"""Walks back from spans: an OTLP JSON file of the walks' spans (what ``--otlp-file`` writes, or what a tracing tool
exports for them) read back as walks to step through, fork, replay and compare.

A walk's spans (:mod:`.walk_spans`) carry its settings and corpus (the walk's ``RETRIEVER`` span), and each
decision (one span per offer: the node judged, the ids chosen, the rationale, the usage, the transcript, the
seconds, a failure and its policy, whether a person forced it). What they do not carry whole (a wide offer's
thousands of candidates, each entered node's summary, the landed documents' content) is the corpus's, and core
is deterministic: :func:`rebuild` walks the corpus again with the recorded answers, which makes the very events
the walk made, then puts each recorded answer (its seconds, its transcript) in place of the re-walk's. A walk
whose spans end before its end (cancelled, or spans lost) stops where its answers run out, as cancelled.

What an older or foreign file lacks is said in :attr:`SpanWalk.notes`, one line each (a transcript whose order
was not recorded is rebuilt in the usual order: the messages sent, the rest, the answer).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core import (
    NavigatorChoice,
    NavigatorChose,
    NavigatorFailed,
    NavigatorRequest,
    OnFailure,
    Policy,
    ReasoningRAGStrategy,
    RetrievalCancelled,
    TreeNavigator,
    WalkEvent,
)
from core.policy import DEFAULT_ALPHA

from ...corpora import Corpus
from ...ending import WalkEnd
from ...navigators.answer_size import ids_kept
from ...reading import TooLarge, open_regular, problem
from ...safe_text import one_line
from ...trace import Trace, TraceHeader
from ...walk_settings import MapRef, WalkSettings
from .attributes import A
from .llm_calls import INPUT_ROLES, OUTPUT_ROLES, PARAMETERS_LABEL, PROVIDER_LABEL

__all__ = ["SpanError", "SpanFileWalk", "SpanWalk", "SpanWalkPlace", "index_span_walks", "read_span_walk",
           "read_span_walks", "rebuild"]

MAX_BYTES = 2_000_000_000
ORDER = A + "transcript.order"
"""A decision span's transcript labels in order, so that the transcript is rebuilt exactly from its parts."""


class SpanError(ValueError):
    """A span file that cannot be read as walks: one line naming the file, the line and what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


@dataclass(frozen=True)
class SpanWalk:
    """One walk as its spans tell it: the header a trace would have, and every decision recorded, in order."""

    header: TraceHeader
    decisions: tuple[NavigatorChose | NavigatorFailed, ...]
    forced_nodes: frozenset[str | None]
    end: WalkEnd
    error: str | None
    name: str
    notes: tuple[str, ...] = ()


def _value(wrapped: Any) -> Any:
    """An OTLP JSON ``AnyValue`` as a plain value."""
    if not isinstance(wrapped, dict):
        return None
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in wrapped:
            return wrapped[key]
    if "intValue" in wrapped:
        try:
            return int(wrapped["intValue"])
        except (TypeError, ValueError):
            return None
    if "arrayValue" in wrapped:
        return [_value(v) for v in (wrapped["arrayValue"] or {}).get("values", [])]
    return None


def _attributes(span: Mapping[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for item in span.get("attributes") or []:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            found[item["key"]] = _value(item.get("value"))
    return found


def _documents(path: Path) -> Iterator[tuple[int, int | None, Any]]:
    """Each OTLP JSON document in the file with its line, and the byte offset of that line when it holds that one
    document (``None``: one of a list, or of a file that is one document): JSON Lines (``--otlp-file``), read a
    line at a time so that a file of 10,000 walks is never held whole; or one document (a tracing tool's
    download)."""
    try:
        with open_regular(path, MAX_BYTES) as handle:
            first = handle.readline().decode("utf-8")
            try:
                document = _loads(first) if first.strip() else None
            except ValueError:
                document = None
            if document is None:  # not one document a line: the whole file is one (pretty-printed) document
                text = first + handle.read().decode("utf-8")
                try:
                    whole = _loads(text)
                except ValueError:
                    whole = None
                if whole is None:
                    number = next((n for n, line in enumerate(text.splitlines(), start=1) if line.strip()), 1)
                    raise _not_json(path, number)
                for each in whole if isinstance(whole, list) else [whole]:
                    yield 1, None, each
                return
            if isinstance(document, list):
                yield from ((1, None, each) for each in document)
            else:
                yield 1, 0, document
            number = 1
            while line := handle.readline():
                number += 1
                if line.strip():
                    yield number, handle.tell() - len(line), _json_at(path, number, line)
    except SpanError:
        raise
    except FileNotFoundError:
        raise SpanError(f"{path}: no such span file") from None
    except TooLarge:
        raise SpanError(f"{path}: larger than {MAX_BYTES:,} bytes; split the export") from None
    except OSError as exc:
        raise SpanError(f"{path}: {problem(exc)}; give an OTLP JSON file") from None
    except UnicodeDecodeError as exc:
        raise SpanError(f"{path}: cannot read the spans ({type(exc).__name__}); give an OTLP JSON file") from None


def _loads(text: str) -> Any:
    """``json.loads``, with nesting too deep to read a ``ValueError`` as any other damage."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None


def _json_at(path: Path, number: int, line: bytes) -> Any:
    try:
        return _loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        raise
    except ValueError:
        raise _not_json(path, number) from None


def _not_json(path: Path, number: int) -> SpanError:
    return SpanError(f"{path}:{number}: not JSON (the file is damaged or cut short); give the OTLP JSON file "
                     "--otlp-file wrote or a tracing tool exported")


def _spans(path: Path) -> Iterator[tuple[int, int | None, dict[str, Any]]]:
    """Every span in the file, as it is, with the count of its document (from 0) and the byte offset of its
    document's line (:func:`_documents`)."""
    for ordinal, (number, where, document) in enumerate(_documents(path)):
        for span in _spans_of(path, number, document):
            yield ordinal, where, span


def _spans_of(path: Path, number: int, document: Any) -> Iterator[dict[str, Any]]:
    if not isinstance(document, dict) or not isinstance(document.get("resourceSpans"), list):
        raise SpanError(f"{path}:{number}: not OTLP JSON (no \"resourceSpans\"); give the OTLP JSON file "
                        "--otlp-file wrote or a tracing tool exported")
    for resource in document["resourceSpans"]:
        for scope in _listed(resource, "scopeSpans"):
            yield from (span for span in _listed(scope, "spans") if isinstance(span, dict))


def _listed(parent: Any, key: str) -> list[Any]:
    """``parent[key]`` when ``parent`` is an object holding a list there; else nothing (a damaged file)."""
    found = parent.get(key) if isinstance(parent, dict) else None
    return found if isinstance(found, list) else []


def _slim(span: dict[str, Any]) -> dict[str, Any]:
    """The span with only what a walk is rebuilt from (no events, no landed documents' content: the corpus has
    them), so that the spans held while a file is read stay small."""
    kept = {key: span.get(key) for key in ("traceId", "spanId", "parentSpanId", "startTimeUnixNano",
                                           "endTimeUnixNano")}
    kept["attributes"] = [item for item in span.get("attributes") or []
                          if isinstance(item, dict) and not str(item.get("key", "")).startswith(_UNUSED)]
    return kept


_UNUSED = ("retrieval.documents.", "output.value", "metadata", "input.mime_type", "output.mime_type")
"""Span attributes a walk is not rebuilt from (the corpus holds the documents; the settings have their own)."""


def _text(attributes: Mapping[str, Any], key: str, default: str = "") -> str:
    value = attributes.get(key)
    return value if isinstance(value, str) else default


def _whole(attributes: Mapping[str, Any], key: str, default: int) -> int:
    value = attributes.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def _ids(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _transcript(attributes: Mapping[str, Any], notes: set[str]) -> tuple[tuple[str, str], ...] | None:
    """The decision's transcript, rebuilt from the LLM messages and the rest, in its recorded order."""
    inputs: list[str] = []
    outputs: list[str] = []
    for key, into in (("llm.input_messages", inputs), ("llm.output_messages", outputs)):
        number = 0
        while f"{key}.{number}.message.content" in attributes:
            into.append(_text(attributes, f"{key}.{number}.message.content"))
            number += 1
    rest: list[tuple[str, str]] = []
    raw = attributes.get(A + "transcript")
    if isinstance(raw, str):
        try:
            rest = [(str(p[0]), str(p[1])) for p in _loads(raw) if isinstance(p, list) and len(p) == 2]
        except ValueError:
            notes.add("a decision's transcript was cut short in the spans (an attribute limit): it is left out")
    if not inputs and not outputs and not rest:
        return None
    order = _ids(attributes.get(ORDER))
    if not order:
        if inputs or outputs:
            notes.add("the spans do not record each transcript's order (an older export): the messages sent come "
                      "first, then the rest, then the answer")
        roles_in = [label for label, role in INPUT_ROLES.items()]
        return (*zip(roles_in, inputs, strict=False), *rest, *(("answer", text) for text in outputs))
    sent, said, others = iter(inputs), iter(outputs), iter(rest)
    in_rest = {label for label, _ in rest}
    rebuilt: list[tuple[str, str]] = []
    for label in order:
        if label == PROVIDER_LABEL and label not in in_rest:
            rebuilt.append((label, _text(attributes, "llm.provider")))
        elif label == PARAMETERS_LABEL and label not in in_rest:
            rebuilt.append((label, _text(attributes, "llm.invocation_parameters")))
        elif label in INPUT_ROLES:
            rebuilt.append((label, next(sent, "")))
        elif label in OUTPUT_ROLES:
            rebuilt.append((label, next(said, "")))
        else:
            pair = next(others, None)
            if pair is not None:
                rebuilt.append(pair)
    return tuple(rebuilt)


def _decision(attributes: Mapping[str, Any], notes: set[str]) -> NavigatorChose | NavigatorFailed | None:
    if not attributes.get(A + "answered"):
        return None
    node = attributes.get(A + "node.id")
    current = node if isinstance(node, str) else None
    seconds = attributes.get(A + "seconds")
    took = float(seconds) if isinstance(seconds, int | float) and not isinstance(seconds, bool) else 0.0
    transcript = _transcript(attributes, notes)
    if isinstance(attributes.get(A + "error"), str):
        policy = _text(attributes, A + "policy", OnFailure.THROW.value)
        return NavigatorFailed(current, _text(attributes, A + "error"),
                               OnFailure(policy) if policy in {p.value for p in OnFailure} else OnFailure.THROW,
                               took, transcript)
    usage = None
    raw_usage = attributes.get(A + "usage")
    if isinstance(raw_usage, str):
        try:
            parsed = _loads(raw_usage)
            usage = parsed if isinstance(parsed, dict) else None
        except ValueError:
            usage = None
    return NavigatorChose(current, _ids(attributes.get(A + "selected")), _ids(attributes.get(A + "hallucinated")),
                          _ids(attributes.get(A + "rejected")), _text(attributes, A + "rationale"), usage, took,
                          transcript, scores=_scores(attributes.get(A + "scores")))


def _scores(raw: object) -> dict[str, float] | None:
    """A decision span's scores (JSON of ids and numbers in [0, 1]); ``None`` when it has none, or they do not read."""
    if not isinstance(raw, str):
        return None
    try:
        parsed = _loads(raw)
    except ValueError:
        return None
    if not isinstance(parsed, dict) or not all(
            isinstance(k, str) and not isinstance(v, bool) and isinstance(v, int | float) and 0 <= v <= 1
            for k, v in parsed.items()):
        return None
    return {k: float(v) for k, v in parsed.items()}


def read_span_walks(path: str | Path) -> list[SpanWalk]:
    """Every walk in an OTLP JSON file, in the order their walk spans come; :class:`SpanError` for a file that
    holds none (foreign spans), or cannot be read."""
    path = Path(path)
    # Two passes, so that a file of 10,000 walks never holds every walk's spans at once: the first finds the last
    # document each trace has spans in (--otlp-file writes one walk a line), the second makes each trace's walks
    # as soon as that document is read, and lets its spans go.
    last: dict[str, int] = {}
    for ordinal, _, span in _spans(path):
        last[str(span.get("traceId", ""))] = ordinal
    first = {trace: number for number, trace in enumerate(last)}
    by_trace: dict[str, list[dict[str, Any]]] = {}
    made: list[tuple[int, int, SpanWalk]] = []
    done = -1

    def make_up_to(ordinal: int) -> None:
        for trace in [t for t in by_trace if last.get(t, -1) <= ordinal]:
            spans = by_trace.pop(trace)
            made.extend((first.get(trace, len(first)), n, _walk(root, spans)) for n, root in enumerate(_roots(spans)))

    for ordinal, _, span in _spans(path):
        if ordinal != done:
            make_up_to(ordinal - 1)
            done = ordinal
        by_trace.setdefault(str(span.get("traceId", "")), []).append(_slim(span))
    make_up_to(len(last) and max(last.values()) + 1)
    walks = [walk for _, _, walk in sorted(made, key=lambda item: (item[0], item[1]))]
    if not walks:
        raise _no_walk(path)
    return walks


def _no_walk(path: Path) -> SpanError:
    return SpanError(f"{path}: holds no walk's spans (no span with {A}navigator); give spans the explorer "
                     "exported (--otlp-file, or a tracing tool's export of them)")


def _is_root(span: Mapping[str, Any]) -> bool:
    """Whether ``span`` is a walk's own (its ``RETRIEVER`` span: no parent, the walk's navigator)."""
    return not span.get("parentSpanId") and any(
        isinstance(item, dict) and item.get("key") == A + "navigator" for item in span.get("attributes") or [])


def _roots(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The walks' own spans among one trace's, in order (a trace holds one walk, or several)."""
    return [span for span in spans if _is_root(span)]


@dataclass(frozen=True)
class SpanWalkPlace:
    """Where a walk is in a span file: its header (what the walk list shows), its trace's id, which walk of that
    trace it is, and the byte offsets of the lines holding its trace's spans (``None``: the file is one document, or
    a list of them, read whole again)."""

    header: TraceHeader
    trace_id: str
    root: int
    lines: tuple[int, ...] | None


def index_span_walks(path: str | Path) -> list[SpanWalkPlace]:
    """Where every walk in an OTLP JSON file is, in the order of :func:`read_span_walks`, with each walk's header,
    from one reading that keeps no span (a file of 10,000 walks is listed in the memory of their headers); the
    :class:`SpanError` of :func:`read_span_walks` for a file that holds no walk or cannot be read."""
    path = Path(path)
    lines: dict[str, list[int | None]] = {}
    roots: dict[str, list[TraceHeader]] = {}
    for _, where, span in _spans(path):
        trace = str(span.get("traceId", ""))
        held = lines.setdefault(trace, [])
        if not held or held[-1] != where:
            held.append(where)
        if _is_root(span):
            roots.setdefault(trace, []).append(_header(span, _attributes(span)))
    places = [SpanWalkPlace(header, trace, number, _offsets(held))
              for trace, held in lines.items() for number, header in enumerate(roots.get(trace, []))]
    if not places:
        raise _no_walk(path)
    return places


def _offsets(held: list[int | None]) -> tuple[int, ...] | None:
    """The offsets of the lines a trace's spans are on; ``None`` when one of them is in a list or a whole-file
    document, whose place is no line's."""
    offsets = tuple(where for where in held if where is not None)
    return offsets if len(offsets) == len(held) else None


def read_span_walk(path: str | Path, place: SpanWalkPlace) -> SpanWalk:
    """The walk at ``place`` in the span file at ``path`` (:func:`index_span_walks`), read from its lines alone;
    :class:`SpanError` when the file changed since (the walk is no longer there)."""
    path = Path(path)
    if place.lines is None:
        spans = [_slim(span) for _, _, span in _spans(path) if str(span.get("traceId", "")) == place.trace_id]
    else:
        spans = []
        try:
            with open_regular(path, MAX_BYTES) as handle:
                for where in place.lines:
                    handle.seek(where)
                    document = _loads(handle.readline().decode("utf-8"))
                    spans.extend(_slim(span) for span in _spans_of(path, 0, document)
                                 if str(span.get("traceId", "")) == place.trace_id)
        except (OSError, ValueError):  # a JSON or UTF-8 error where a line of spans was
            spans = []
    roots = _roots(spans)
    walk = _walk(roots[place.root], spans) if place.root < len(roots) else None
    if walk is None or walk.header != place.header:
        raise SpanError(f"{path}: the walk “{one_line(place.header.settings.query)}” is no longer where it was (the "
                        "file changed since it was opened); open the file again")
    return walk


@dataclass(frozen=True, eq=False)
class SpanFileWalk:
    """A span file's walk listed from its header, rebuilt on ``corpus`` when it is read (a
    :class:`~explorer.walks.saved.SavedWalk`)."""

    path: Path
    place: SpanWalkPlace
    corpus: Corpus

    @property
    def header(self) -> TraceHeader:
        return self.place.header

    def read(self) -> Trace:
        """The walk as a trace (:func:`rebuild`); :class:`SpanError` when its spans are no longer in the file."""
        return rebuild(read_span_walk(self.path, self.place), self.corpus, self.path)


def _walk(root: dict[str, Any], spans: list[dict[str, Any]]) -> SpanWalk:
    attributes = _attributes(root)
    notes: set[str] = set()
    children: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        children.setdefault(str(span.get("parentSpanId") or ""), []).append(span)
    ordered: list[dict[str, Any]] = []
    stack = [str(root.get("spanId", ""))]
    seen: set[str] = set()
    while stack:  # every span under the walk's, bounded by the spans there are
        parent = stack.pop()
        if parent in seen:
            continue
        seen.add(parent)
        for child in children.get(parent, []):
            ordered.append(child)
            stack.append(str(child.get("spanId", "")))
    ordered.sort(key=lambda s: (_nanos(s, "startTimeUnixNano"), _nanos(s, "endTimeUnixNano")))
    decisions: list[NavigatorChose | NavigatorFailed] = []
    forced: set[str | None] = set()
    for span in ordered:
        found = _attributes(span)
        decision = _decision(found, notes)
        if decision is not None:
            decisions.append(decision)
            if found.get(A + "forced"):
                forced.add(decision.current)
    header = _header(root, attributes)
    end_text = _text(attributes, A + "end", WalkEnd.FINISHED.value)
    end = WalkEnd(end_text) if end_text in {e.value for e in WalkEnd} else WalkEnd.FINISHED
    error = attributes.get(A + "error")
    return SpanWalk(header, tuple(decisions), frozenset(forced), end, error if isinstance(error, str) else None,
                    _text(attributes, A + "walk") or header.settings.query, tuple(sorted(notes)))


def _header(root: Mapping[str, Any], attributes: Mapping[str, Any]) -> TraceHeader:
    """The header a trace of the walk whose own span is ``root`` (with its ``attributes``) would have."""
    sources = attributes.get(A + "sources")
    on_failure = _text(attributes, A + "on_failure", OnFailure.THROW.value)
    policy = _text(attributes, A + "walk_policy", Policy.DEPTH_FIRST.value)
    alpha = attributes.get(A + "alpha")
    best_first = policy == Policy.BEST_FIRST.value and isinstance(alpha, int | float) and not isinstance(alpha, bool) \
        and 0 < alpha <= 1  # a walk span without them (or with ones that do not read) was walked depth-first
    return TraceHeader(
        corpus_path=_text(attributes, A + "corpus.path"), corpus_sha256=_text(attributes, A + "corpus.sha256"),
        corpus_source=_text(attributes, A + "corpus.source"), corpus_format=_text(attributes, A + "corpus.format"),
        settings=WalkSettings(
            query=_text(attributes, "input.value"), model=_text(attributes, A + "navigator"),
            max_nodes_visited=max(1, _whole(attributes, A + "max_nodes_visited", 15)),
            max_depth=_whole(attributes, A + "max_depth", 6),
            on_failure=OnFailure(on_failure) if on_failure in {p.value for p in OnFailure} else OnFailure.THROW,
            policy=Policy.BEST_FIRST if best_first else Policy.DEPTH_FIRST,
            alpha=float(alpha) if best_first and isinstance(alpha, int | float) else DEFAULT_ALPHA),
        sources=_ids(sources) if isinstance(sources, list) else None, created=_created(root),
        map=MapRef.from_json({"path": attributes.get(A + "map.path"), "sha256": attributes.get(A + "map.sha256")}))


NANOS_LIMIT = 2**64
"""OTLP writes a span's times as an unsigned 64-bit count of nanoseconds: a larger one is damage."""


def _nanos(span: Mapping[str, Any], key: str) -> int:
    """A span's time (ns since the epoch); 0 when a damaged file gives none a number can be read from (a string
    that is no whole number, ``Infinity``, a number past an unsigned 64-bit count, one too long to read)."""
    try:
        nanos = int(span.get(key) or 0)
    except (TypeError, ValueError, OverflowError):
        return 0
    return nanos if 0 <= nanos < NANOS_LIMIT else 0


def _created(span: Mapping[str, Any]) -> str:
    """When the walk started, as an ISO time; ``""`` when no time a calendar holds can be read."""
    started = _nanos(span, "startTimeUnixNano")
    if started <= 0:
        return ""
    try:
        return datetime.fromtimestamp(started / 1e9, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (ValueError, OverflowError, OSError):  # past the year 9999
        return ""


class _Recorded(TreeNavigator):
    """Answers each offer with the walk's recorded decision for that node; none recorded: the walk is cancelled
    there (its spans end before its end)."""

    def __init__(self, decisions: tuple[NavigatorChose | NavigatorFailed, ...]) -> None:
        self.by_node: dict[str | None, NavigatorChose | NavigatorFailed] = {}
        for decision in decisions:
            self.by_node.setdefault(decision.current, decision)

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        recorded = self.by_node.get(request.current.id if request.current is not None else None)
        if recorded is None:
            raise RetrievalCancelled()
        if isinstance(recorded, NavigatorFailed):
            raise _raised(recorded.error)
        return NavigatorChoice(recorded.selected[:ids_kept(len(request.candidates))], scores=recorded.scores)


def _raised(error: str) -> Exception:
    """An exception that core describes as ``error`` again (``Name: message``), so the stops and the result say
    what the walk said."""
    name, colon, message = error.partition(": ")
    kind: type[Exception] = type(name if colon and name.isidentifier() else error, (Exception,), {})
    return kind(message) if colon and name.isidentifier() else kind()


def rebuild(walk: SpanWalk, corpus: Corpus, path: str | Path) -> Trace:
    """The walk as a trace: the corpus walked again with its recorded answers (module docstring)."""
    navigator = _Recorded(walk.decisions)
    header, settings = walk.header, walk.header.settings
    strategy = ReasoningRAGStrategy(corpus.index, navigator, settings.model,
                                    max_nodes_visited=settings.max_nodes_visited, max_depth=settings.max_depth,
                                    on_failure=settings.on_failure, sources=header.sources,
                                    policy=settings.policy, alpha=settings.alpha)
    events: list[WalkEvent] = []
    end, error = walk.end, walk.error
    try:
        for event in strategy.walk(settings.query):
            if isinstance(event, NavigatorChose | NavigatorFailed):
                recorded = navigator.by_node.get(event.current)
                if recorded is not None:
                    if isinstance(recorded, NavigatorChose) and isinstance(event, NavigatorChose):
                        # the recorded answer, with what it changed in the frontier of this walk (best-first)
                        event = replace(recorded, joined=event.joined, left=event.left,
                                        frontier_log=event.frontier_log, frontier_mark=event.frontier_mark)
                    else:
                        event = recorded if type(recorded) is type(event) else replace(event)
            events.append(event)
    except RetrievalCancelled:
        end = WalkEnd.CANCELLED
    except Exception as exc:  # RetrievalError under on_failure throw: the walk failed as recorded
        end = WalkEnd.FAILED
        error = error or f"{type(exc).__name__}: {exc}"
    forced = frozenset(seq for seq, event in enumerate(events, start=1)
                       if isinstance(event, NavigatorChose) and event.current in walk.forced_nodes)
    return Trace(header, tuple(events), end, error, forced, path=Path(path))
