"""The one secret masker: the values of known secret variables (API keys, a tracing backend's key) replaced by
``***`` in anything written out — traces, spans, transcripts, messages.

Every writer masks the same way: the values are looked for longest first (one secret may contain another),
each also in the form JSON escapes it to (``"\\u0073k-..."`` spells the same key inside a JSON string), and a
value shorter than :data:`MIN_SECRET_LENGTH` is not masked (it would blank ordinary words).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from urllib.parse import unquote

from .process import environment

SECRET_VARIABLES = ("OPENAI_API_KEY", "VLLM_API_KEY", "ANTHROPIC_API_KEY", "AZURE_OPENAI_API_KEY",
                    "LANGFUSE_SECRET_KEY", "LANGFUSE_PUBLIC_KEY", "PHOENIX_API_KEY")
"""Variables whose values are secrets wherever they appear."""
HEADER_VARIABLES = ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS")
"""Variables of ``name=value`` pairs (a tracing backend's key): each value is a secret, as written and unquoted,
and so is the credential of a value with a scheme (``Bearer TOKEN``: ``TOKEN`` alone too)."""
MIN_SECRET_LENGTH = 8
MASK = "***"


class Secrets:
    """A set of secret values, and :meth:`mask` to take them out of any text."""

    def __init__(self, values: Iterable[str]) -> None:
        forms = {form for value in values if len(value) >= MIN_SECRET_LENGTH
                 for form in (value, json.dumps(value, ensure_ascii=True)[1:-1],
                              json.dumps(value, ensure_ascii=False)[1:-1])}
        self.values: tuple[str, ...] = tuple(sorted(forms, key=lambda v: (-len(v), v)))

    @classmethod
    def from_environment(cls) -> Secrets:
        """The secrets of this process's environment: :data:`SECRET_VARIABLES` and :data:`HEADER_VARIABLES`."""
        environ = environment()
        values = [environ.get(name) for name in SECRET_VARIABLES]
        for name in HEADER_VARIABLES:
            for pair in environ.get(name).split(","):
                value = pair.partition("=")[2].strip()
                words = unquote(value).split()
                values += [value, unquote(value), *([words[-1]] if len(words) > 1 else [])]
        return cls(values)

    def __repr__(self) -> str:
        return f"<{len(self.values)} secret form(s)>"  # a traceback's locals never show one

    def __bool__(self) -> bool:
        return bool(self.values)

    def mask(self, text: str) -> str:
        for value in self.values:
            text = text.replace(value, MASK)
        return text
