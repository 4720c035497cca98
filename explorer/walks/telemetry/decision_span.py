"""The span of one offer and its decision: what was offered, what answered it and how, and what it cost.

``LLM`` kind for a decision an LLM answered, with the transcript's ``system``
and ``user`` entries as ``llm.input_messages``, its ``answer`` as
``llm.output_messages``, its ``parameters`` as ``llm.invocation_parameters``
and the usage of a live call as ``llm.token_count.*``; ``TOOL`` kind for the
other navigators; ``CHAIN`` kind for a decision no navigator made
(:mod:`.llm_calls`). A decision answered without a call says how in its name
(``choose under billing (forced)``); ids never offered are an ``unoffered id``
event each; a failure sets an error status. An LLM's answer names its habits
(:mod:`explorer.walks.habits`) in ``reasoning_explorer.habits`` (``[]``: none),
each with its figure (``reasoning_explorer.habits.duplicate_ids``: 7).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from openinference.semconv.trace import MessageAttributes, OpenInferenceSpanKindValues, SpanAttributes
from opentelemetry import trace as otel_trace
from opentelemetry.context import Context
from opentelemetry.trace import Status, StatusCode

from core import NavigatorChose, NavigatorFailed, Policy

from ...masking import Secrets
from ...navigators.answered import Answered
from ...trace import TraceHeader
from ..decisions import Decision
from ..habits import decision_habits, habits_to_json
from .attributes import A, Attributes, json_object, pair, view
from .llm_calls import INPUT_ROLES, OUTPUT_ROLES, PARAMETERS_LABEL, PROVIDER_LABEL, llm_of, span_kind

__all__ = ["MAX_CANDIDATES_SHOWN", "decision_span"]

MAX_CANDIDATES_SHOWN = 100
"""An offer lists at most this many candidates in its span (a wide one has thousands); the count is always there."""


def decision_span(tracer: otel_trace.Tracer, context: Context, header: TraceHeader, decision: Decision,
                  clock: Sequence[int], finish: int, secrets: Secrets) -> otel_trace.Span:
    """The span of one offer and its decision, under ``context``, from the offer to its answer (``finish``: none
    came); ``clock`` stamps each event of the walk."""
    offer, answer, how = decision.offer, decision.answer, decision.how
    model = header.settings.model
    transcript = tuple(answer.transcript or ()) if answer is not None else ()
    llm = llm_of(model, transcript)
    kind = span_kind(model, how, llm)
    offered_at = clock[decision.offer_seq - 1]
    if decision.answer_seq is None or answer is None:
        start, stop = offered_at, finish
    else:
        stop = clock[decision.answer_seq - 1]
        start = min(max(offered_at, stop - round(answer.seconds * 1e9)), stop)
    span = Attributes(secrets)
    span.set(SpanAttributes.OPENINFERENCE_SPAN_KIND, kind.value)
    span.json(SpanAttributes.INPUT_VALUE, {
        "query": header.settings.query, "current": view(offer.current), "path": list(offer.path),
        "candidates": [view(c) for c in offer.candidates[:MAX_CANDIDATES_SHOWN]],
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
        parameters = json_object(pair(transcript, PARAMETERS_LABEL))
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
        # The labels in order: with the messages and the rest, the transcript comes back whole (span_walks).
        span.set(A + "transcript.order", [label for label, _ in transcript])
    elif kind is OpenInferenceSpanKindValues.TOOL:
        span.set(SpanAttributes.TOOL_NAME, model)
    if rest:
        span.json(A + "transcript", [list(entry) for entry in rest])
    status: Status | None = None
    if isinstance(answer, NavigatorChose):
        span.set(A + "selected", list(answer.selected))
        span.set(A + "hallucinated", list(answer.hallucinated))
        span.set(A + "hallucinated_count", len(answer.hallucinated))
        span.set(A + "rejected", list(answer.rejected))
        span.set(A + "rationale", answer.rationale)
        span.set(A + "seconds", answer.seconds)
        if answer.scores is not None:  # the navigator's score of each offered id, in [0, 1]
            span.json(A + "scores", dict(answer.scores))
        if header.settings.policy is not Policy.DEPTH_FIRST:  # the nodes that joined the frontier by this answer
            span.json(A + "joined", [list(pair) for pair in answer.joined])
        habits = decision_habits(decision, header.settings.query)
        if habits is not None:  # an LLM's answer: its habits named, [] for none, and each one's figure
            span.set(A + "habits", [habit.value for habit in habits.flagged])
            for name, value in (habits_to_json(habits) or {}).items():
                span.set(f"{A}habits.{name}", value)
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
    child = tracer.start_span(secrets.mask(title), context=context, attributes=span.values, start_time=start)
    if isinstance(answer, NavigatorChose):
        for unoffered in answer.hallucinated:
            event = Attributes(secrets)
            event.set(A + "id", unoffered)
            event.set(A + "node.id", node)
            child.add_event("unoffered id", event.values, timestamp=stop)
    if status is not None:
        child.set_status(status)
    child.end(end_time=stop)
    return child


def _messages(attributes: Attributes, key: str, messages: Sequence[tuple[str, str]]) -> None:
    for number, (role, content) in enumerate(messages):
        attributes.set(f"{key}.{number}.{MessageAttributes.MESSAGE_ROLE}", role)
        attributes.set(f"{key}.{number}.{MessageAttributes.MESSAGE_CONTENT}", content)


def _count(usage: Mapping[str, Any], name: str) -> int | None:
    value = usage.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None
