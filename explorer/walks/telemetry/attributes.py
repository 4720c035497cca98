"""One span's (or span event's) attributes, built with every text masked: no known secret ever reaches a span."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from openinference.semconv.trace import OpenInferenceMimeTypeValues
from opentelemetry.util.types import AttributeValue

from core import NodeView

from ...masking import Secrets

__all__ = ["A", "Attributes", "json_object", "pair", "plain", "view"]

A = "reasoning_explorer."
"""The prefix of this project's own attributes."""


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _encodable(text: str) -> str:
    """``text`` as UTF-8 can carry it: a lone surrogate (a navigator's JSON-escaped ``\\ud800``) is written as that
    escape, as a trace writes it. OpenTelemetry refused such a value with a traceback per attribute, and dropped
    the attributes."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def plain(value: Any) -> Any:
    """A metadata value as JSON would carry it (tuples as lists, anything odd as text)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


class Attributes:
    """Builds one span's (or event's) attributes, masking every text; ``None`` values are left out."""

    def __init__(self, secrets: Secrets) -> None:
        self.secrets = secrets
        self.values: dict[str, AttributeValue] = {}

    def text(self, value: str) -> str:
        return self.secrets.mask(_encodable(value))

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
            self.values[key] = self.text(_json(plain(value)))

    def json(self, key: str, value: Any, mime_key: str | None = None) -> None:
        self.values[key] = self.text(_json(plain(value)))
        if mime_key is not None:
            self.values[mime_key] = OpenInferenceMimeTypeValues.JSON.value


def view(node: NodeView | None) -> dict[str, str] | None:
    """A node as an offer's JSON shows it."""
    return None if node is None else {"id": node.id, "title": node.title, "summary": node.summary}


def pair(transcript: Sequence[tuple[str, str]], label: str) -> str | None:
    """The text of the first ``label`` pair of a transcript, if any."""
    return next((text for name, text in transcript if name == label), None)


def json_object(text: str | None) -> dict[str, Any] | None:
    """``text`` read as a JSON object, or ``None``."""
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
