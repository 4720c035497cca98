"""The project's YAML corpus format: nested nodes with id, title, summary, content, metadata, children.

```yaml
source: handbook              # required: the source name written on every node
title: Employee handbook      # optional: the corpus's display name (absent: the source)
nodes:                        # required: the roots, in order
  - id: billing               # required, unique within the corpus
    title: Billing            # optional (absent: the id)
    summary: Invoices, payments and refunds   # optional (absent: "")
    content: ...              # optional (absent: "")
    metadata: {owner: finance}                # optional, scalar values
    children: [...]           # optional, same shape, in order
```

Ids, titles, summaries and contents are taken exactly as written (``id:
1.10`` is the id ``"1.10"``, not a number); metadata values keep their YAML
types (text, numbers, true/false). Reading collects every problem it finds
with its line, so ``validate`` can list them all; loading raises the first.

Reading takes one of two paths over the same composed document. A well-formed
corpus goes through a lean reader that assumes every rule holds and gives up
at the first thing that does not; then the full reader, which checks every
rule and collects each problem with its line, reads it again from the start.
Both give the same corpus for a well-formed file (a test holds them to it), so
the lean one decides only how fast a good corpus loads, never what a bad one
is told. YAML is the hand-written format: a big corpus is better kept as
PageIndex JSON or Markdown, which load several times faster.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from core import HierarchyError, HierarchyIndex, RetrievedDocument

from .errors import CorpusError
from .files import read_text
from .model import RESERVED_KEYS, Corpus, make_document, sha256_of_bytes
from .progress import Progress, Stage
from .yaml_source import (
    LAZY_TAG,
    NULL_TAG,
    NULL_WORDS,
    compose,
    did_you_mean,
    is_null,
    kind,
    line_of,
    pairs,
    scalar_text,
    scalar_value,
)

TOP_KEYS = ("source", "title", "nodes")
NODE_KEYS = ("id", "title", "summary", "content", "metadata", "children")
TEXT_KEYS = ("title", "summary", "content")


@dataclass
class YamlCorpusReading:
    """Everything one read of a YAML corpus found: the corpus when it loads, and every problem."""

    path: Path
    corpus: Corpus | None = None
    errors: list[CorpusError] = field(default_factory=list)


def read_yaml_corpus(path: Path, progress: Progress | None = None) -> Corpus:
    """Load a YAML corpus, or raise a CorpusError for its first problem (saying how many more there are)."""
    reading = scan_yaml_corpus(path, progress)
    if reading.errors:
        first = reading.errors[0]
        if len(reading.errors) > 1:
            more = len(reading.errors) - 1
            raise CorpusError(
                first.path,
                f"{first.reason} (and {more} more problem{'s' if more > 1 else ''}: "
                f"run `reasoning-explorer validate {path}` to list them)",
                line=first.line,
                node=first.node,
            )
        raise first
    assert reading.corpus is not None
    return reading.corpus


def scan_yaml_corpus(path: Path, progress: Progress | None = None) -> YamlCorpusReading:
    """Read a YAML corpus, collecting every problem instead of stopping at the first."""
    progress = progress or Progress(None)
    reading = YamlCorpusReading(path)
    try:
        text, data = read_text(path, progress)
    except CorpusError as error:
        reading.errors.append(error)
        return reading
    sha256 = sha256_of_bytes([data])
    del data
    try:
        with progress.whole(Stage.PARSING):
            root = compose(path, text, lazy=True)
    except CorpusError as error:
        reading.errors.append(error)
        return reading
    del text
    reading.corpus = read_lean(path, root, sha256, progress)
    return reading if reading.corpus is not None else read_checking(path, root, sha256)


def read_checking(path: Path, root: Node | None, sha256: str) -> YamlCorpusReading:
    """The full reader over a composed document ``root``: every rule checked, every problem collected with its line
    (the corpus when there is none). For a well-formed file it gives what :func:`read_lean` gives."""
    reading = YamlCorpusReading(path)
    _Reader(path, reading).read(root, sha256)
    return reading


class _Unusual(Exception):
    """The lean reader met something it does not handle: the full reader takes over."""


_NODE_KEYS = frozenset(NODE_KEYS)


def _text(node: Node) -> str | None:
    """A text field's value: ``None`` when null; _Unusual when not a scalar."""
    if type(node) is not ScalarNode:
        raise _Unusual
    value: str = node.value
    if node.tag == LAZY_TAG:
        return None if value in NULL_WORDS else value
    return None if node.tag == NULL_TAG else value


def read_lean(path: Path, root: Node | None, sha256: str, progress: Progress) -> Corpus | None:
    """The lean reader over a composed document ``root``: the corpus, read on the assumption that every rule holds;
    ``None`` at the first thing that does not.

    Nothing here reports a problem: the full reader does, and it also reads
    every corpus this one accepts to the same result.
    """
    try:
        return _LeanReader(path, progress).read(root, sha256)
    except _Unusual:
        return None


class _LeanReader:
    def __init__(self, path: Path, progress: Progress) -> None:
        self.path = path
        self.progress = progress

    def read(self, root: Node | None, sha256: str) -> Corpus:
        if type(root) is not MappingNode:
            raise _Unusual
        top: dict[str, Node] = {}
        for key_node, value in root.value:
            if type(key_node) is not ScalarNode or key_node.value not in TOP_KEYS or key_node.value in top:
                raise _Unusual
            top[key_node.value] = value
        source_node, nodes = top.get("source"), top.get("nodes")
        if source_node is None or nodes is None or type(nodes) is not SequenceNode or not nodes.value:
            raise _Unusual
        source = _text(source_node)
        if source is None or not source.strip():
            raise _Unusual
        title_node = top.get("title")
        title = _text(title_node) if title_node is not None else None
        documents, lines = self.walk(nodes, source)
        with self.progress.whole(Stage.INDEXING):
            try:
                index = HierarchyIndex(documents)
            except HierarchyError:
                raise _Unusual from None
        return Corpus(self.path, "yaml", source, title if title is not None else source, index, sha256, lines)

    def walk(self, roots: SequenceNode, source: str) -> tuple[list[RetrievedDocument], dict[str, int]]:
        documents: list[RetrievedDocument] = []
        lines: dict[str, int] = {}
        seen_nodes: set[int] = set()
        typed: dict[str, Any] = {}
        progress = self.progress
        progress.start(Stage.BUILDING)
        stack: list[tuple[Node, str | None]] = [(item, None) for item in reversed(roots.value)]
        pop, push, text_or, tick = stack.pop, stack.extend, _text_or, progress.tick
        while stack:
            item, parent = pop()
            if type(item) is not MappingNode or id(item) in seen_nodes:
                raise _Unusual  # not a node, or one reached again through an alias
            seen_nodes.add(id(item))
            pairs = item.value
            try:
                # Only a scalar's value is hashable (text): a list or mapping as a key fails here.
                fields: dict[str, Node] = {key.value: value for key, value in pairs}
            except TypeError:
                raise _Unusual from None
            if len(fields) != len(pairs) or not fields.keys() <= _NODE_KEYS:
                raise _Unusual  # a key given twice, or one that is not a node's
            node_id = text_or(fields.get("id"), None)
            if node_id is None or node_id in lines or not node_id.strip():
                raise _Unusual
            meta_node = fields.get("metadata")
            lines[node_id] = item.start_mark.line + 1
            documents.append(
                make_document(
                    node_id,
                    source=source,
                    parent=parent,
                    title=text_or(fields.get("title"), node_id),
                    summary=text_or(fields.get("summary"), ""),
                    content=text_or(fields.get("content"), ""),
                    metadata=None if meta_node is None or is_null(meta_node) else _metadata(meta_node, typed),
                )
            )
            tick(len(documents))
            children = fields.get("children")
            if children is not None and not is_null(children):
                if type(children) is not SequenceNode:
                    raise _Unusual
                push([(child, node_id) for child in reversed(children.value)])
        progress.finish(len(documents))
        return documents, lines


def _text_or(node: Node | None, default: str | None) -> Any:
    """A text field's value, ``default`` when absent or null."""
    if node is None:
        return default
    value = _text(node)
    return default if value is None else value


_UNSEEN = object()


def _metadata(node: Node, typed: dict[str, Any]) -> dict[str, Any]:
    """A node's metadata; ``typed`` remembers what each plain value read as (the same few values recur)."""
    if type(node) is not MappingNode:
        raise _Unusual
    values: dict[str, Any] = {}
    for key_node, value in node.value:
        if type(key_node) is not ScalarNode or key_node.value in RESERVED_KEYS or type(value) is not ScalarNode:
            raise _Unusual
        if value.tag == LAZY_TAG:  # a plain scalar's type depends on its text alone
            known = typed.get(value.value, _UNSEEN)
            if known is _UNSEEN:
                known = typed[value.value] = scalar_value(value)
            values[key_node.value] = known
        else:
            values[key_node.value] = scalar_value(value)
    return values


class _Reader:
    def __init__(self, path: Path, reading: YamlCorpusReading) -> None:
        self.path = path
        self.reading = reading
        self.documents: list[RetrievedDocument] = []
        self.lines: dict[str, int] = {}

    def error(self, node: Node | None, message: str, label: str | None = None) -> None:
        self.reading.errors.append(
            CorpusError(self.path, message, line=line_of(node) if node is not None else None, node=label)
        )

    def read(self, root: Node | None, sha256: str) -> None:
        if root is None:
            self.error(None, "the file is empty; a corpus needs `source:` and `nodes:`")
            return
        if not isinstance(root, MappingNode):
            self.error(root, f"a corpus file is a mapping with `source:` and `nodes:`, not {kind(root)}")
            return
        top: dict[str, Node] = {}
        for key, key_node, value in pairs(root):
            if key not in TOP_KEYS:
                self.error(key_node, f"unknown top-level key {key!r}{did_you_mean(str(key), TOP_KEYS)}")
            elif key in top:
                self.error(key_node, f"`{key}:` is given twice (also at line {line_of(top[key])}); keep one")
            else:
                top[key] = value
        source = self.required_text(root, top.get("source"), "source", "the source name written on every node")
        title_node = top.get("title")
        title = source or self.path.stem
        if title_node is not None and not is_null(title_node):
            if isinstance(title_node, ScalarNode):
                title = scalar_text(title_node)
            else:
                self.error(title_node, f"`title:` must be text, not {kind(title_node)}")
        nodes = top.get("nodes")
        if nodes is None or is_null(nodes):
            self.error(root, "no `nodes:`; list the corpus's top-level nodes under `nodes:`")
            return
        if not isinstance(nodes, SequenceNode):
            self.error(nodes, f"`nodes:` must be a list of nodes, not {kind(nodes)}")
            return
        if not nodes.value:
            self.error(nodes, "`nodes:` is empty; a corpus needs at least one node")
        self.walk(nodes, source or self.path.stem)
        if self.reading.errors or source is None:
            return
        try:
            index = HierarchyIndex(self.documents)
        except HierarchyError as exc:  # not expected after the checks above; still one clear line
            self.error(None, f"the nodes do not form a tree: {exc}")
            return
        self.reading.corpus = Corpus(self.path, "yaml", source, title, index, sha256, self.lines)

    def required_text(self, parent: Node, node: Node | None, key: str, what: str) -> str | None:
        if node is None or is_null(node):
            self.error(parent, f"no `{key}:`; give {what}")
            return None
        if not isinstance(node, ScalarNode):
            self.error(node, f"`{key}:` must be text, not {kind(node)}")
            return None
        text = scalar_text(node)
        if not text.strip():
            self.error(node, f"`{key}:` is blank; give {what}")
            return None
        return text

    def walk(self, roots: SequenceNode, source: str) -> None:
        """Depth-first, in file order, with an explicit stack: no recursion per level."""
        seen_ids: dict[str, int] = {}
        seen_nodes: set[int] = set()
        stack: list[tuple[Node, str, str | None]] = [
            (item, f"nodes[{i}]", None) for i, item in reversed(list(enumerate(roots.value)))
        ]
        while stack:
            item, where, parent = stack.pop()
            if id(item) in seen_nodes:
                self.error(item, f"node at {where} repeats another through a YAML alias; write each node once")
                continue
            seen_nodes.add(id(item))
            node_id = self.node(item, where, parent, source, seen_ids)
            children = self.children_of(item, where, node_id)
            if node_id is None:
                continue  # its children cannot be placed; their own problems would only repeat this one
            for i, child in reversed(list(enumerate(children))):
                stack.append((child, f"{where}.children[{i}]", node_id))

    def node(self, item: Node, where: str, parent: str | None, source: str, seen_ids: dict[str, int]) -> str | None:
        if not isinstance(item, MappingNode):
            self.error(item, f"node at {where} must be a mapping with an `id:`, not {kind(item)}", where)
            return None
        fields: dict[str, Node] = {}
        for key, key_node, value in pairs(item):
            if key in fields:
                self.error(key_node, f"node at {where}: `{key}:` is given twice; keep one", where)
            elif key not in NODE_KEYS:
                self.error(key_node, f"node at {where}: unknown key {key!r}{did_you_mean(str(key), NODE_KEYS)}", where)
            else:
                fields[key] = value
        id_node = fields.get("id")
        label = where
        node_id: str | None = None
        if id_node is None or is_null(id_node):
            title = fields.get("title")
            hint = f" (title {scalar_text(title)!r})" if isinstance(title, ScalarNode) else ""
            self.error(item, f"node at {where}{hint} has no id; add `id: <unique-id>`", where)
        elif not isinstance(id_node, ScalarNode):
            self.error(id_node, f"node at {where}: `id:` must be text, not {kind(id_node)}", where)
        elif not scalar_text(id_node).strip():
            self.error(id_node, f"node at {where}: `id:` is blank; give every node a unique id", where)
        else:
            node_id = scalar_text(id_node)
            label = node_id
            if node_id in seen_ids:
                self.error(
                    id_node,
                    f"duplicate id {node_id!r} (first at line {seen_ids[node_id]}); ids must be unique within "
                    "a corpus: rename one",
                    node_id,
                )
                node_id = None
            else:
                seen_ids[node_id] = line_of(item)
        name = f"node {label!r}" if label != where else f"node at {where}"
        texts: dict[str, str] = {}
        for key in TEXT_KEYS:
            text_node = fields.get(key)
            if text_node is None or is_null(text_node):
                continue
            if isinstance(text_node, ScalarNode):
                texts[key] = scalar_text(text_node)
            else:
                self.error(text_node, f"{name}: `{key}:` must be text, not {kind(text_node)}", label)
        metadata = self.metadata(fields.get("metadata"), name, label)
        if node_id is None:
            return None
        self.lines[node_id] = line_of(item)
        self.documents.append(
            make_document(
                node_id,
                source=source,
                parent=parent,
                title=texts.get("title", node_id),
                summary=texts.get("summary", ""),
                content=texts.get("content", ""),
                metadata=metadata,
            )
        )
        return node_id

    def metadata(self, node: Node | None, name: str, label: str) -> dict[str, Any]:
        if node is None or is_null(node):
            return {}
        if not isinstance(node, MappingNode):
            self.error(node, f"{name}: `metadata:` must be a mapping of names to values, not {kind(node)}", label)
            return {}
        values: dict[str, Any] = {}
        for key, key_node, value in pairs(node):
            if key is None:
                self.error(key_node, f"{name}: metadata keys must be text, not {kind(key_node)}", label)
            elif key in RESERVED_KEYS:
                self.error(key_node, f"{name}: metadata key {key!r} is reserved for the loader; rename it", label)
            elif not isinstance(value, ScalarNode):
                self.error(
                    value,
                    f"{name}: metadata value {key!r} must be a scalar (text, number, true/false), not {kind(value)}",
                    label,
                )
            else:
                values[key] = scalar_value(value)
        return values

    def children_of(self, item: Node, where: str, node_id: str | None) -> list[Node]:
        if not isinstance(item, MappingNode):
            return []
        for key, _, value in pairs(item):
            if key != "children" or is_null(value):
                continue
            if isinstance(value, SequenceNode):
                return list(value.value)
            name = f"node {node_id!r}" if node_id else f"node at {where}"
            self.error(value, f"{name}: `children:` must be a list of nodes, not {kind(value)}", node_id or where)
        return []
