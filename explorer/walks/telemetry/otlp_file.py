"""Spans as the OTLP file format writes them: one OTLP/JSON ``ExportTraceServiceRequest``, ids in hex."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan

__all__ = ["otlp_json"]


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
