"""A streamed chat completion (server-sent events) put back together as the one completion it stands for.

``local:`` models ask llama.cpp's server to stream its answer. The answer is no different, but a stream is
written token by token, and a write to a connection the client has closed fails at once, so a cancelled walk
stops the generation within a token; answered in one piece, the server only notices a closed connection when
it gets round to looking, and a cancelled generation could run on for minutes, holding both cores, for nobody.
The body is read as any other (bounded, cancellable) and then :func:`assemble` turns its events into the
``{"choices": [{"message": ...}], "usage": ...}`` the rest of the navigator reads, keeps in transcripts and
caches.
"""

from __future__ import annotations

import json
from typing import Any


def assemble(text: str) -> str | None:
    """The completion a stream of ``data: {...}`` events makes, as JSON text; ``None`` when ``text`` is no
    stream (a server that answered in one piece after all, or an error body), to be read as it is."""
    if not text.lstrip().startswith("data:"):
        return None
    content: list[str] = []
    role = "assistant"
    finish: object = None
    extra: dict[str, Any] = {}
    for line in text.splitlines():
        if not line.startswith("data:"):
            continue
        data = line[len("data:"):].strip()
        if not data or data == "[DONE]":
            continue
        try:
            chunk = json.loads(data)
        except ValueError:
            continue
        if not isinstance(chunk, dict):
            continue
        if "error" in chunk:
            return json.dumps({"error": chunk["error"]})
        for key in ("id", "model", "usage", "timings"):
            if chunk.get(key) is not None:
                extra[key] = chunk[key]
        choices = chunk.get("choices")
        first = choices[0] if isinstance(choices, list) and choices else None
        if not isinstance(first, dict):
            continue
        delta = first.get("delta")
        if isinstance(delta, dict):
            if isinstance(delta.get("content"), str):
                content.append(delta["content"])
            if isinstance(delta.get("role"), str):
                role = delta["role"]
        if first.get("finish_reason") is not None:
            finish = first["finish_reason"]
    completion = {**extra, "object": "chat.completion",
                  "choices": [{"index": 0, "message": {"role": role, "content": "".join(content)},
                               "finish_reason": finish}]}
    return json.dumps(completion, ensure_ascii=False)
