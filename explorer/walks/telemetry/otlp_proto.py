"""Spans as they go over OTLP/HTTP: one protobuf ``ExportTraceServiceRequest``, every string escaped as the file's.

The OTLP file is JSON, whose text escapes control, C1 and bidi characters
(``\\u001b``, ``\\u202e``); protobuf carries strings raw, so a query holding
an escape sequence would reach a collector, and whatever prints it (a debug
exporter's log, a terminal UI), as a live one. Here every span name, event
name, status message, attribute key and attribute text (in lists and maps
too) gets the same ``\\uXXXX`` (:func:`explorer.safe_text.escape_unicode`): what
a backend shows is what the file's text shows, and a JSON attribute stays
JSON that means the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.sdk.trace import ReadableSpan

from ...safe_text import escape_unicode

__all__ = ["otlp_protobuf"]


def _value(value: AnyValue) -> None:
    kind = value.WhichOneof("value")
    if kind == "string_value":
        value.string_value = escape_unicode(value.string_value)
    elif kind == "array_value":
        for item in value.array_value.values:
            _value(item)
    elif kind == "kvlist_value":
        _attributes(value.kvlist_value.values)


def _attributes(pairs: Iterable[KeyValue]) -> None:
    for pair in pairs:
        pair.key = escape_unicode(pair.key)
        _value(pair.value)


def otlp_protobuf(spans: Sequence[ReadableSpan]) -> bytes:
    """``spans`` as one serialized OTLP ``ExportTraceServiceRequest``, every string escaped."""
    request = encode_spans(spans)
    for resource_spans in request.resource_spans:
        _attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                span.name = escape_unicode(span.name)
                span.status.message = escape_unicode(span.status.message)
                _attributes(span.attributes)
                for event in span.events:
                    event.name = escape_unicode(event.name)
                    _attributes(event.attributes)
                for link in span.links:
                    _attributes(link.attributes)
    return request.SerializeToString()
