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

A walk's spans come from its one record (:class:`explorer.trace.FinishedWalk`), the record its trace is written
from: the same events under the same header. :meth:`WalkTelemetry.export_walk` takes it, as a walk's observer
(``explorer.walks.wiring.WalkObserver``) and as a sender of an application's ``WalkRecorder``.

Times come from the walk: each event is stamped when the session pulled it
and a decision span ends when its answer arrived and starts ``seconds``
(the navigator's own time) before. Without stamps (a record of a walk read from a file),
the decisions are laid end to end from the walk's start.

The spans go to an OTLP/HTTP endpoint (``--otlp-endpoint``, or the
``REASONING_EXPLORER_OTLP_ENDPOINT`` variable; ``/v1/traces`` is added unless
given; ``OTEL_EXPORTER_OTLP_HEADERS`` carries a backend's key, in headers,
never in spans), and/or to a file of OTLP/JSON lines (``--otlp-file``, one
``ExportTraceServiceRequest`` per walk, ids in hex, as the OTLP file format
says, escaped as trace files are: C1 and bidi characters as ``\\uXXXX``; the
endpoint gets every string escaped the same way, :mod:`.otlp_proto`). Each
attribute's text keeps at most :data:`ATTRIBUTE_LENGTH` characters unless
``OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`` (or, for spans,
``OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT``) says otherwise. A
walk is sent when it is over, in one request (:mod:`.otlp_http`),
which may take :data:`EXPORT_TIMEOUT_SECONDS` in all, whatever the endpoint
does, so closing never waits longer either. An endpoint that fails (down,
refusing, redirecting, asking to retry later, resetting, dripping) never
breaks the walk: what happened is reported once, in one escaped line, and
the endpoint is not tried again in this run, so a long ``eval`` is slowed
once at most. No key is ever in a span: transcripts never hold one, and the
value of any known secret variable is masked in every attribute.

The package's modules, from the top: :mod:`.exporter` (:class:`WalkTelemetry`:
the configuration it is given, sending, the file, reports, closing) over
:mod:`.evaluation_spans` and :mod:`.walk_spans` (one walk's spans), over
:mod:`.decision_span`, :mod:`.documents`, :mod:`.question_facts` and
:mod:`.span_walks`, over :mod:`.llm_calls`, over :mod:`.attributes`,
:mod:`.config`, :mod:`.otlp_file`, :mod:`.otlp_http` and :mod:`.otlp_proto`
(the contract in ``pyproject.toml`` holds them to it); a walk's decisions,
and how each was answered, are :mod:`explorer.walks.decisions`'. Import the
names below from here.

UI-free: nothing here imports Textual.
"""


from __future__ import annotations

from .config import (
    ATTRIBUTE_LENGTH,
    ENDPOINT_ENV,
    EXPORT_TIMEOUT_SECONDS,
    TelemetryConfigError,
    attribute_lengths,
    traces_url,
)
from .evaluation_spans import EvaluationSpans
from .exporter import WalkTelemetry
from .otlp_file import otlp_json
from .question_facts import QuestionFacts, miss_reason_of

__all__ = [
    "ATTRIBUTE_LENGTH",
    "ENDPOINT_ENV",
    "EXPORT_TIMEOUT_SECONDS",
    "EvaluationSpans",
    "QuestionFacts",
    "TelemetryConfigError",
    "WalkTelemetry",
    "attribute_lengths",
    "miss_reason_of",
    "otlp_json",
    "traces_url",
]
