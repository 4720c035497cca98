"""The exporter: each walk it is given sent, once over, to an OTLP/HTTP endpoint and/or written to an OTLP/JSON file.

A walk is sent in one request (:mod:`.otlp_http`), which may take
:data:`~.config.EXPORT_TIMEOUT_SECONDS` in all, whatever the endpoint does,
so closing never waits longer either. An endpoint that fails never breaks the
walk: what happened is reported once, in one escaped line, and the endpoint is
not tried again in this run. The file gets one ``ExportTraceServiceRequest``
per line (:mod:`.otlp_file`), escaped as trace files are; the endpoint gets the same strings escaped the same
way (:mod:`.otlp_proto`).
"""

from __future__ import annotations

import contextlib
import json
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TextIO

from opentelemetry.sdk.trace import ReadableSpan

from ...masking import Secrets
from ...outputs import Output, Read, Refused, open_stream
from ...process import environment
from ...safe_text import escape_json, one_line
from ...trace import FinishedWalk
from .config import (
    ENDPOINT_ENV,
    EXPORT_TIMEOUT_SECONDS,
    TelemetryConfigError,
    attribute_lengths,
    shown_url,
    traces_url,
)
from .evaluation_spans import EvaluationSpans
from .otlp_file import otlp_json
from .otlp_http import OtlpHttpSender
from .otlp_proto import otlp_protobuf
from .question_facts import QuestionFacts
from .walk_spans import SERVICE_NAME, WalkTracer

__all__ = ["Report", "WalkTelemetry"]

Report = Callable[[str], None]


def _stderr_report(message: str) -> None:
    import sys

    print(f"{SERVICE_NAME}: warning: {message}", file=sys.stderr, flush=True)


class WalkTelemetry(WalkTracer):
    """Sends each walk it is given as OpenTelemetry spans to ``endpoint`` (OTLP/HTTP) and/or ``file`` (OTLP/JSON lines).

    ``file`` is created (emptied) now, through the one gate (:func:`explorer.outputs.open_stream`: never over what
    ``reads`` holds, through a symlink to its regular target), and gets one line per walk. ``report``
    receives each problem once, as one line (default: stderr). Safe to use
    from several threads (``eval --jobs``): walks are sent one at a time.
    It makes each walk's spans as its base :class:`~.walk_spans.WalkTracer`
    does (:meth:`spans_for`), every walk of a run in one session.
    """

    def __init__(
        self,
        endpoint: str | None = None,
        file: str | Path | None = None,
        *,
        timeout: float = EXPORT_TIMEOUT_SECONDS,
        report: Report | None = None,
        reads: Iterable[Read | None] = (),
    ) -> None:
        self.url = traces_url(endpoint) if endpoint is not None else None
        self.file = Path(file) if file is not None else None
        self.report = report or _stderr_report
        self._lock = threading.Lock()
        self._endpoint_failed = False
        self._file_failed = False
        self._reported: set[str] = set()
        self._report_lock = threading.Lock()
        self._evaluations: list[EvaluationSpans] = []
        self._handle: TextIO | None = None
        if self.file is not None:
            try:
                self._handle = open_stream(Output("--otlp-file", self.file), reads, doing="write spans",
                                           example="spans.jsonl", replace=True)  # the command line asked first
            except Refused as exc:
                raise TelemetryConfigError(exc.line) from None
            except OSError as exc:
                raise TelemetryConfigError(
                    f"cannot write spans to {self.file}: {exc.strerror or exc}; give a file in a writable folder"
                ) from None
        self._sender = OtlpHttpSender(self.url, deadline=timeout) if self.url is not None else None
        super().__init__(uuid.uuid4().hex)

    @classmethod
    def from_options(
        cls,
        endpoint: str | None,
        file: str | None,
        *,
        environ: Mapping[str, str] | None = None,
        report: Report | None = None,
        reads: Iterable[Read | None] = (),
    ) -> WalkTelemetry | None:
        """The telemetry the command line asks for (``endpoint`` falls back to ``REASONING_EXPLORER_OTLP_ENDPOINT``),
        or ``None`` when it asks for none. Raises :class:`TelemetryConfigError` for a bad address or file."""
        env = environment().variables if environ is None else environ
        name = "--otlp-endpoint"
        if endpoint is None and env.get(ENDPOINT_ENV, "").strip():
            endpoint, name = env[ENDPOINT_ENV], ENDPOINT_ENV
        if endpoint is None and file is None:
            return None
        if endpoint is not None:
            traces_url(endpoint, name=name)
        attribute_lengths(env)
        if file is not None:
            folder = Path(file).expanduser().parent
            if not folder.is_dir():
                raise TelemetryConfigError(f"cannot write spans to {file}: no folder {folder}")
        return cls(endpoint, Path(file).expanduser() if file is not None else None, report=report, reads=reads)

    # -- sending -------------------------------------------------------------------------------------

    def export_walk(self, walk: FinishedWalk, question: QuestionFacts | None = None) -> None:
        """Send one walk's spans (:meth:`spans_for`, from its one record; ``question``: what an evaluation made of
        it) wherever this telemetry sends. A :data:`explorer.walks.wiring.WalkObserver`, and a sender of
        ``explorer.recording.WalkRecorder``: it never raises (a failed send, or a bug, is reported once)."""
        try:
            spans = self.spans_for(walk, question)
            with self._lock:
                self._send(spans)
                self._write(spans)
        except Exception as exc:  # telemetry never breaks a walk: say it once and carry on
            self.report_problem("bug", f"tracing export failed: {type(exc).__name__}: {exc}")

    def for_evaluation(self) -> EvaluationSpans:
        """The observer for an evaluation's walks, which sends each with what the evaluation made of it."""
        spans = EvaluationSpans(self.export_walk)
        with self._report_lock:
            self._evaluations.append(spans)
        return spans

    def _send(self, spans: Sequence[ReadableSpan]) -> None:
        if self._sender is None or self._endpoint_failed or not spans:
            return
        problem = self._sender.send(otlp_protobuf(spans))  # every string escaped as the file's
        if problem is not None:
            self._endpoint_failed = True
            self.report_problem("endpoint", f"cannot send the walk's spans to {shown_url(self.url or '')} "
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
            self.shutdown()

    def __enter__(self) -> WalkTelemetry:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
