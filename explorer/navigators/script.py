"""The scripted navigator: decisions read from a YAML file, for demos and for tests of the
budget, the depth limit, hallucinations, failures and cancellation.

```yaml
decisions:                    # keyed by the id of the node being judged; start = the first offer
  start: [billing]
  billing: {select: [refunds, ghost], rationale: "refunds, and one id that was never offered"}
  refunds: {error: "upstream timeout"}          # the provider raises
  shipping: {select: [], delay: 0.5}            # stop here, after half a second
default: []                   # the answer for any other node (absent: [])
```

A decision is a list of ids, or a mapping with ``select`` (ids), ``rationale``,
``error`` (raise this message), ``delay`` (seconds to wait first, at most an
hour; a cancel wakes it at once) and ``usage`` (token counts to report, for demos). The
model id is ``script:PATH``; the file is read when the walk starts and again
whenever it changes.
"""

from __future__ import annotations

import contextlib
import math
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from core import NavigatorChoice, NavigatorRequest, RetrievalCancelled, Transcript, TreeNavigator

from ..corpora import read_text
from ..corpora.errors import CorpusError
from ..corpora.yaml_source import did_you_mean, is_null, kind, line_of, pairs, read_mapping, scalar_text, scalar_value
from .answer_size import ids_kept
from .file_cache import FileCache

PREFIX = "script:"
START = "start"
DECISION_KEYS = ("select", "rationale", "error", "delay", "usage")
MAX_DELAY = 3600  # a demo's pause; a longer one (or .inf) would overflow the clock mid-walk


class ScriptedFailure(RuntimeError):
    """The failure a script asks for with ``error:``; ``transcript`` names the script entry."""

    def __init__(self, message: str, transcript: Transcript = ()) -> None:
        super().__init__(message)
        self.transcript = transcript


@dataclass(frozen=True)
class ScriptEntry:
    """What a script says to answer at one node (or by default): the ids, or a failure, with where it is written."""

    select: tuple[str, ...] = ()
    rationale: str = ""
    error: str | None = None
    delay: float = 0.0
    usage: dict[str, Any] | None = None
    line: int | None = None
    entry: str = ""
    """The entry as written in the script (key and value), for the transcript; empty for an absent default."""
    entry_line: int | None = None


@dataclass(frozen=True)
class Script:
    path: Path
    decisions: dict[str, ScriptEntry]
    default: ScriptEntry = field(default_factory=ScriptEntry)

    def decision_for(self, node_id: str | None) -> ScriptEntry:
        return self.decisions.get(START if node_id is None else node_id, self.default)

    def transcript_for(self, node_id: str | None) -> Transcript:
        """What the script said for this node: the entry as written and where, or the default."""
        key = START if node_id is None else node_id
        decision = self.decision_for(node_id)
        if key in self.decisions:
            return (("script", decision.entry), ("from", f"{self.path}:{decision.entry_line}"))
        if decision.entry:
            return (("script", decision.entry), ("from", f"{self.path}:{decision.entry_line} (no entry for {key!r})"))
        return (("script", f"no entry for {key!r} and no default: answering []"), ("from", str(self.path)))


def _ids(path: Path, node: Node, where: str) -> tuple[str, ...]:
    if is_null(node):
        return ()
    if isinstance(node, ScalarNode):
        return (scalar_text(node),)
    if isinstance(node, SequenceNode) and all(isinstance(item, ScalarNode) for item in node.value):
        return tuple(scalar_text(item) for item in node.value)
    raise CorpusError(path, f"{where}: expected a list of node ids, not {kind(node)}", line=line_of(node))


def _delay(path: Path, node: Node, where: str) -> float:
    """Seconds to wait, refused here when a wait could never end or would overflow the clock mid-walk."""
    try:
        delay = scalar_value(node) if isinstance(node, ScalarNode) else None
    except ValueError:  # an integer too long for Python to convert
        digits = sum(ch.isdigit() for ch in str(node.value))
        raise CorpusError(path, f"{where} must be at most {MAX_DELAY} seconds (an hour), not a number of "
                                f"{digits} digits", line=line_of(node)) from None
    if isinstance(delay, str) and isinstance(node, ScalarNode) and not node.style:  # plain: None, or "" from libyaml
        with contextlib.suppress(ValueError):  # YAML 1.1 reads 1e12 (no dot, no sign) as text; a person wrote a number
            delay = float(delay)
    if isinstance(delay, bool) or not isinstance(delay, int | float) or math.isnan(delay) or delay < 0:
        raise CorpusError(path, f"{where} must be a number of seconds, at least 0", line=line_of(node))
    if delay > MAX_DELAY:
        raise CorpusError(path, f"{where} must be at most {MAX_DELAY} seconds (an hour), not {delay:g}",
                          line=line_of(node))
    return float(delay)


def _entry(text: str, key_node: Node, value: Node) -> tuple[str, int]:
    """The text of ``key: value`` as written (continuation lines dedented to the key's column), and its line."""
    start, end = key_node.start_mark, value.end_mark
    written = text[start.index:end.index].rstrip()
    return textwrap.dedent(" " * start.column + written), line_of(key_node)


def _decision(path: Path, node: Node, where: str, entry: tuple[str, int] | None = None) -> ScriptEntry:
    text, entry_line = entry or ("", None)
    if not isinstance(node, MappingNode):
        return ScriptEntry(select=_ids(path, node, where), line=line_of(node), entry=text, entry_line=entry_line)
    values: dict[str, Any] = {"line": line_of(node), "entry": text, "entry_line": entry_line}
    for key, key_node, value in pairs(node):
        if key not in DECISION_KEYS:
            raise CorpusError(
                path, f"{where}: unknown key {key!r}{did_you_mean(str(key), DECISION_KEYS)}", line=line_of(key_node)
            )
        if key == "select":
            values["select"] = _ids(path, value, f"{where}.select")
        elif key in ("rationale", "error"):
            if not isinstance(value, ScalarNode):
                raise CorpusError(path, f"{where}.{key} must be text, not {kind(value)}", line=line_of(value))
            values[key] = scalar_text(value)
        elif key == "delay":
            values["delay"] = _delay(path, value, f"{where}.delay")
        elif key == "usage":
            if not isinstance(value, MappingNode):
                raise CorpusError(path, f"{where}.usage must be a mapping of counts", line=line_of(value))
            values["usage"] = {k: scalar_value(v) for k, _, v in pairs(value) if isinstance(v, ScalarNode)}
    return ScriptEntry(**values)


def load_script(path: str | Path) -> Script:
    """Read a navigator script; every problem is a CorpusError naming the file and line."""
    path = Path(path)
    root = read_mapping(path, "no such navigator script; give a YAML file of decisions (see `script:` in the README)",
                        "a navigator script is a mapping with `decisions:`")
    text, _ = read_text(path)  # the entries as written, for transcripts
    decisions: dict[str, ScriptEntry] = {}
    default = ScriptEntry()
    for key, key_node, value in pairs(root):
        if key == "decisions":
            if not isinstance(value, MappingNode):
                raise CorpusError(path, f"`decisions:` must map node ids to decisions, not {kind(value)}",
                                  line=line_of(value))
            for node_key, node_key_node, decision in pairs(value):
                if node_key is None:
                    raise CorpusError(path, "decision keys must be node ids", line=line_of(node_key_node))
                decisions[node_key] = _decision(path, decision, f"decisions.{node_key}",
                                                _entry(text, node_key_node, decision))
        elif key == "default":
            default = _decision(path, value, "default", _entry(text, key_node, value))
        else:
            raise CorpusError(
                path, f"unknown key {key!r}{did_you_mean(str(key), ('decisions', 'default'))}", line=line_of(key_node)
            )
    return Script(path, decisions, default)


class ScriptNavigator(TreeNavigator):
    """``script:PATH`` — answers from a YAML script, per node id."""

    def __init__(self) -> None:
        self._scripts = FileCache(PREFIX, "sample_corpora/scripts/hallucinated-branch.yaml", load_script)

    def supports(self, model: str) -> bool:
        return model.startswith(PREFIX)

    def reads_file(self, model: str) -> bool:
        """Every ``script:`` model names a file (a session with files off refuses it before it is read)."""
        return True

    def files_read(self, model: str) -> tuple[Path, ...]:
        """The script file ``model`` names (no output may be written over it)."""
        path = self._scripts.path_of(model)
        return (path,) if path is not None else ()

    def check_model(self, model: str) -> None:
        """Load the script now, so a bad one is a configuration error before the walk."""
        self.script(model)

    def script(self, model: str) -> Script:
        return self._scripts.get(model)

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        token = request.cancellation
        token.raise_if_cancelled()
        script = self.script(request.model)
        node_id = request.current.id if request.current else None
        decision = script.decision_for(node_id)
        transcript = script.transcript_for(node_id)
        if decision.delay and token.wait(decision.delay):
            raise RetrievalCancelled()
        if decision.error is not None:
            raise ScriptedFailure(decision.error, transcript)
        return NavigatorChoice(decision.select[:ids_kept(len(request.candidates))], decision.rationale, decision.usage,
                               transcript)
