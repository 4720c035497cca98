"""A small OTLP/HTTP receiver for tests: a real server on 127.0.0.1 that takes ``POST /v1/traces``.

It decodes each request with ``opentelemetry-proto`` and keeps it, so a test reads back what a
tracing backend (Phoenix, Langfuse, a collector) would have received::

    with OtlpReceiver() as receiver:
        ...  # point the code under test at receiver.url
        walk = receiver.spans()[0]
        assert walk.attributes["openinference.span.kind"] == "RETRIEVER"
"""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue


def value_of(value: AnyValue) -> Any:
    """An OTLP attribute value as Python (arrays as tuples)."""
    field = value.WhichOneof("value")
    if field == "array_value":
        return tuple(value_of(v) for v in value.array_value.values)
    if field == "kvlist_value":
        return {kv.key: value_of(kv.value) for kv in value.kvlist_value.values}
    return getattr(value, field) if field else None


def attributes_of(pairs: Any) -> dict[str, Any]:
    return {kv.key: value_of(kv.value) for kv in pairs if isinstance(kv, KeyValue)}


@dataclass(frozen=True)
class Event:
    name: str
    time: int
    attributes: dict[str, Any]


@dataclass(frozen=True)
class ReceivedSpan:
    """One span as received: ids in hex (``parent`` is ``""`` for a root), times in ns since the epoch."""

    name: str
    trace_id: str
    span_id: str
    parent: str
    start: int
    end: int
    attributes: dict[str, Any]
    events: tuple[Event, ...]
    status_code: int
    status_message: str
    resource: dict[str, Any]
    scope: str


class OtlpReceiver:
    """Accepts OTLP/HTTP protobuf exports on ``url``; ``requests`` are the decoded bodies, in order."""

    def __init__(self) -> None:
        self.requests: list[ExportTraceServiceRequest] = []
        self.content_types: list[str] = []
        self.headers: list[dict[str, str]] = []
        """Each request's headers, names lower-cased."""
        self.other_paths: list[str] = []
        self._lock = threading.Lock()
        self._received = threading.Condition(self._lock)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path != "/v1/traces":
                    with receiver._lock:
                        receiver.other_paths.append(self.path)
                    self.send_error(404)
                    return
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                with receiver._received:
                    receiver.requests.append(request)
                    receiver.content_types.append(self.headers.get("Content-Type", ""))
                    receiver.headers.append({k.lower(): v for k, v in self.headers.items()})
                    receiver._received.notify_all()
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="otlp-receiver", daemon=True)

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def wait_for(self, count: int, timeout: float = 30.0) -> None:
        """Wait until ``count`` requests have arrived (for exports made on another thread)."""
        with self._received:
            self._received.wait_for(lambda: len(self.requests) >= count, timeout)

    def spans(self) -> list[ReceivedSpan]:
        """Every span received, in arrival order."""
        found = []
        with self._lock:
            requests = list(self.requests)
        for request in requests:
            for resource_spans in request.resource_spans:
                resource = attributes_of(resource_spans.resource.attributes)
                for scope_spans in resource_spans.scope_spans:
                    for span in scope_spans.spans:
                        found.append(ReceivedSpan(
                            name=span.name, trace_id=span.trace_id.hex(), span_id=span.span_id.hex(),
                            parent=span.parent_span_id.hex(), start=span.start_time_unix_nano,
                            end=span.end_time_unix_nano, attributes=attributes_of(span.attributes),
                            events=tuple(Event(e.name, e.time_unix_nano, attributes_of(e.attributes))
                                         for e in span.events),
                            status_code=span.status.code, status_message=span.status.message,
                            resource=resource, scope=scope_spans.scope.name,
                        ))
        return found


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
