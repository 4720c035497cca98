"""The response cache: an LLM's answer kept on disk, keyed on the whole request, so that asking again costs nothing.

The key is the SHA-256 of the request as sent — the server's base address (or, for a ``local:`` model, the
model file), and the whole body: the model, the messages, the structured-output schema, the sampling settings
and ``max_tokens`` — and never of the headers, so never of the API key. Re-running a walk or an evaluation
with the same settings then makes no call. A request with a temperature above 0 and no seed is a fresh sample
each time and is never cached (the navigator does not ask, :attr:`~.options.ModelOptions.cacheable`).

One file per entry, ``DIR/ab/abcdef….json``, holding the key's inputs (the request, so an entry can be read by
a person and is checked against the request before it is used), the HTTP status and the answer's body. A file
is written whole under a temporary name and renamed into place, so a reader sees either nothing or a whole
entry, and two writers of one key each leave a whole entry (the last rename wins). Anything else — a
truncated or corrupt file, garbage, an entry of another request, a FIFO, a device or a symlink at an entry's
path, a folder that cannot be read or written — is
a miss (or a write skipped), never a failure: the call is made as if there were no cache. promptfoo and
Inspect AI cache model calls the same way.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ...outputs import Output, write
from ...reading import read_file

_log = logging.getLogger(__name__)

VERSION: Final = 1
MAX_ENTRY_BYTES: Final = 4_000_000


@dataclass(frozen=True, slots=True)
class CachedAnswer:
    """An answer read from the cache: its HTTP status and body, and when it was saved (seconds since the epoch)."""

    key: str
    status: int
    text: str
    saved: float

    @property
    def saved_text(self) -> str:
        """When it was saved, in UTC: ``2025-05-01 09:30:12 UTC``."""
        return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self.saved))


def _canonical(document: object) -> str:
    return json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def request_key(where: str, body: Mapping[str, Any]) -> str:
    """The cache key of ``body`` sent to ``where`` (a base URL without credentials, or a model file's identity)."""
    return hashlib.sha256(_canonical({"v": VERSION, "where": where, "body": body}).encode("utf-8")).hexdigest()


class ResponseCache:
    """Answers kept under ``folder`` (made when first written); see the module's docstring."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, key: str) -> Path:
        """The file of ``key``."""
        return self.folder / key[:2] / f"{key}.json"

    def get(self, where: str, body: Mapping[str, Any]) -> CachedAnswer | None:
        """The answer saved for exactly this request, or ``None`` (absent, unreadable, corrupt, another request's)."""
        key = request_key(where, body)
        try:
            # Not followed through a symlink, not waited on (a FIFO), never more than the limit read: an entry is
            # a regular file this cache wrote, and anything else at its path is foreign.
            data = read_file(self.path(key), MAX_ENTRY_BYTES, follow_symlinks=False)
        except OSError:
            return None
        if len(data) > MAX_ENTRY_BYTES:
            return None
        try:
            entry = json.loads(data.decode("utf-8"))
        except (ValueError, RecursionError):
            _log.debug("cache entry %s is not JSON: a miss", key)
            return None
        if not isinstance(entry, dict) or entry.get("version") != VERSION:
            return None
        status, text, saved = entry.get("status"), entry.get("answer"), entry.get("saved")
        if not (isinstance(status, int) and isinstance(text, str) and isinstance(saved, int | float)):
            return None
        # The request itself is checked too: a key is a hash, and a file can be copied or edited by hand.
        if entry.get("where") != where or _canonical(entry.get("request")) != _canonical(body):
            return None
        return CachedAnswer(key, status, text, float(saved))

    def put(self, where: str, body: Mapping[str, Any], status: int, text: str) -> bool:
        """Save the answer to this request; ``False`` (and nothing said) when the folder cannot take it."""
        key = request_key(where, body)
        target = self.path(key)
        entry = {"version": VERSION, "where": where, "request": body, "status": status, "answer": text,
                 "saved": time.time()}
        data = _canonical(entry).encode("utf-8")
        if len(data) > MAX_ENTRY_BYTES:
            return False
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            write(Output("the response cache entry", target), data.decode("utf-8"), doing="cache the answer",
                  example="entry.json", replace=True, prefix=f".{key[:16]}")  # its own file, named by its key
        except OSError as exc:
            _log.debug("cannot write the response cache entry %s: %s", target, exc)
            return False
        return True
