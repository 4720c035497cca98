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
``error`` (raise this message), ``delay`` (seconds to wait first; a cancel
wakes it at once) and ``usage`` (token counts to report, for demos). The
model id is ``script:PATH``; the file is read when the walk starts and again
whenever it changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from core import NavigatorChoice, NavigatorRequest, RetrievalCancelled, TreeNavigator

from ..corpora.errors import CorpusError
from ..corpora.yaml_source import did_you_mean, is_null, kind, line_of, pairs, read_mapping, scalar_text, scalar_value
from .file_cache import FileCache

PREFIX = "script:"
START = "start"
DECISION_KEYS = ("select", "rationale", "error", "delay", "usage")


class ScriptedFailure(RuntimeError):
    """The failure a script asks for with ``error:``."""


@dataclass(frozen=True)
class Decision:
    select: tuple[str, ...] = ()
    rationale: str = ""
    error: str | None = None
    delay: float = 0.0
    usage: dict[str, Any] | None = None
    line: int | None = None


@dataclass(frozen=True)
class Script:
    path: Path
    decisions: dict[str, Decision]
    default: Decision = field(default_factory=Decision)

    def decision_for(self, node_id: str | None) -> Decision:
        return self.decisions.get(START if node_id is None else node_id, self.default)


def _ids(path: Path, node: Node, where: str) -> tuple[str, ...]:
    if is_null(node):
        return ()
    if isinstance(node, ScalarNode):
        return (scalar_text(node),)
    if isinstance(node, SequenceNode) and all(isinstance(item, ScalarNode) for item in node.value):
        return tuple(scalar_text(item) for item in node.value)
    raise CorpusError(path, f"{where}: expected a list of node ids, not {kind(node)}", line=line_of(node))


def _decision(path: Path, node: Node, where: str) -> Decision:
    if not isinstance(node, MappingNode):
        return Decision(select=_ids(path, node, where), line=line_of(node))
    values: dict[str, Any] = {"line": line_of(node)}
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
            delay = scalar_value(value) if isinstance(value, ScalarNode) else None
            if isinstance(delay, bool) or not isinstance(delay, int | float) or delay < 0:
                raise CorpusError(path, f"{where}.delay must be a number of seconds, at least 0", line=line_of(value))
            values["delay"] = float(delay)
        elif key == "usage":
            if not isinstance(value, MappingNode):
                raise CorpusError(path, f"{where}.usage must be a mapping of counts", line=line_of(value))
            values["usage"] = {k: scalar_value(v) for k, _, v in pairs(value) if isinstance(v, ScalarNode)}
    return Decision(**values)


def load_script(path: str | Path) -> Script:
    """Read a navigator script; every problem is a CorpusError naming the file and line."""
    path = Path(path)
    root = read_mapping(path, "no such navigator script; give a YAML file of decisions (see `script:` in the README)",
                        "a navigator script is a mapping with `decisions:`")
    decisions: dict[str, Decision] = {}
    default = Decision()
    for key, key_node, value in pairs(root):
        if key == "decisions":
            if not isinstance(value, MappingNode):
                raise CorpusError(path, f"`decisions:` must map node ids to decisions, not {kind(value)}",
                                  line=line_of(value))
            for node_key, node_key_node, decision in pairs(value):
                if node_key is None:
                    raise CorpusError(path, "decision keys must be node ids", line=line_of(node_key_node))
                decisions[node_key] = _decision(path, decision, f"decisions.{node_key}")
        elif key == "default":
            default = _decision(path, value, "default")
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

    def check_model(self, model: str) -> None:
        """Load the script now, so a bad one is a configuration error before the walk."""
        self.script(model)

    def script(self, model: str) -> Script:
        return self._scripts.get(model)

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        token = request.cancellation
        token.raise_if_cancelled()
        script = self.script(request.model)
        decision = script.decision_for(request.current.id if request.current else None)
        if decision.delay and token.wait(decision.delay):
            raise RetrievalCancelled()
        if decision.error is not None:
            raise ScriptedFailure(decision.error)
        return NavigatorChoice(decision.select, decision.rationale, decision.usage)
