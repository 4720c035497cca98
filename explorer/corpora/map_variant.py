"""Map variants: a corpus's titles and summaries changed by a small overlay file, never by writing the corpus.

A navigator sees only titles and summaries (the *map*); when a summary hides what lies under it, the fix is the map's.
A map variant is a YAML (or JSON) file of the nodes changed, by id, kept beside the corpus in a ``maps`` folder as
``maps/<corpus name>.map.yaml`` (``handbook.yaml`` → ``maps/handbook.map.yaml``), like the prompt variants'
``prompts``::

    format: reasoning-explorer-map
    version: 1
    corpus: handbook.yaml
    nodes:
      refunds:
        summary: How refunds are asked for, approved and paid back.
      billing:
        title: Billing and invoices

Each node names a ``title``, a ``summary`` or both; what it leaves out stays as the corpus has it. ``corpus`` (the
corpus's file name) is only said, for a person. :func:`read_map` reads one against a corpus, refusing in one line
(a :class:`~.errors.CorpusError` naming the file, its line and the node id, and what to do) a damaged file, an id the
corpus does not hold, an id with control characters, an empty title or summary; :func:`apply_map` makes a copy of the
corpus with the overlay applied (the corpus loaded stays as it was); :func:`keep_edit` writes one node's edit into a
variant through the one output gate (:func:`explorer.outputs.write`), never over the corpus or any other input.
"""

from __future__ import annotations

import difflib
import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

import yaml
from yaml.nodes import MappingNode, ScalarNode

from core import HierarchyIndex, RetrievedDocument

from ..outputs import Output, Read, Refused, overwrites, write
from ..safe_text import has_control
from ..walk_settings import MapRef
from .errors import CorpusError
from .files import CORPUS_KINDS, MISSING, check_corpus_path, read_text
from .model import SUMMARY, TITLE, Corpus, sha256_of_bytes
from .summaries import extractive_summary
from .yaml_source import compose, did_you_mean, is_null, kind, line_of, pairs, scalar_text

__all__ = ["MAPS_FOLDER", "MAP_FORMAT", "MAP_SUFFIX", "MapVariant", "NodeEdit", "apply_map", "child_titles",
           "keep_edit", "map_path_for", "read_map", "subtree_text", "suggested_summary", "with_map"]

MAP_FORMAT: Final = "reasoning-explorer-map"
MAP_VERSION: Final = 1
MAPS_FOLDER: Final = "maps"
MAP_SUFFIX: Final = ".map.yaml"
_TOP_KEYS = ("format", "version", "corpus", "nodes")
_NODE_KEYS = ("title", "summary")
_SUGGEST_AMONG = 20_000
"""Past this many nodes an unknown id is not matched against every id for a suggestion (a million would be slow)."""


@dataclass(frozen=True, slots=True)
class NodeEdit:
    """What a map variant changes of one node: its ``title``, its ``summary`` (``None``: as the corpus has it)."""

    title: str | None = None
    summary: str | None = None


@dataclass(frozen=True)
class MapVariant:
    """A map variant read against a corpus: its file, the sha256 of its bytes, and its edits by node id."""

    path: Path
    sha256: str
    nodes: Mapping[str, NodeEdit]

    @property
    def ref(self) -> MapRef:
        return MapRef(str(self.path), self.sha256)


def map_path_for(corpus_path: str | Path) -> Path:
    """Where the explorer keeps the map variant of the corpus at ``corpus_path`` when none is given (``--map``):
    ``maps/<name>.map.yaml`` beside it (``maps/handbook.map.yaml``; a folder ``docs`` → ``maps/docs.map.yaml``)."""
    path = Path(corpus_path).expanduser().resolve()
    stem = path.name if path.is_dir() else path.stem
    return path.parent / MAPS_FOLDER / f"{stem}{MAP_SUFFIX}"


def _problem(path: Path, message: str, *, line: int | None = None, node: str | None = None) -> CorpusError:
    return CorpusError(path, message, line=line, node=node)


def _text_of(path: Path, value: object, what: str, node_id: str) -> str:
    """A title's or a summary's text, or the one line that refuses it (empty, or not text)."""
    if not isinstance(value, ScalarNode) or is_null(value):
        found = "empty" if isinstance(value, ScalarNode) else kind(value)  # type: ignore[arg-type]
        raise _problem(path, f"the {what} of node {node_id!r} is {found}; write its {what} as text, or leave "
                       f"'{what}:' out to keep the corpus's", line=line_of(value), node=node_id)  # type: ignore[arg-type]
    text = scalar_text(value)
    if not text.strip():
        raise _problem(path, f"an empty {what} for node {node_id!r}; write what it should say, or leave "
                       f"'{what}:' out to keep the corpus's", line=line_of(value), node=node_id)
    return text


def _unknown(path: Path, node_id: str, line: int, corpus: Corpus) -> CorpusError:
    near = (difflib.get_close_matches(node_id, list(corpus.index.ids()), n=1, cutoff=0.6)
            if len(corpus.index) <= _SUGGEST_AMONG else [])
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    return _problem(path, f"no node {node_id!r} in {corpus.path.name}{hint}; name a node id of the corpus, or "
                    "remove it from the map", line=line, node=node_id)


_GIVE = "give the map variant's file (maps/NAME.map.yaml)"


def _checked(path: Path) -> os.stat_result:
    """What ``path`` is, or the line that refuses it, saying to give a map variant (not a corpus's kinds of file)."""
    try:
        return check_corpus_path(path)
    except CorpusError as exc:
        if exc.reason == MISSING:
            raise _problem(path, f"no such file; {_GIVE}") from None
        if exc.reason.endswith(CORPUS_KINDS):
            raise _problem(path, exc.reason.removesuffix(CORPUS_KINDS) + _GIVE) from None
        raise


def read_map(path: str | Path, corpus: Corpus) -> MapVariant:
    """The map variant at ``path``, checked against ``corpus`` (the one it changes: its file as loaded, any map
    applied before set aside). Every problem is a :class:`CorpusError` of one line naming the file, the line and the
    node; nothing is changed by reading."""
    path = Path(path)
    if not stat.S_ISREG(_checked(path).st_mode):
        raise _problem(path, f"is a folder; {_GIVE}")
    text, data = read_text(path)
    root = compose(path, text)
    expected = "each node id with its title and/or summary (docs/formats.md)"
    if not isinstance(root, MappingNode):
        shape = "empty" if root is None else kind(root)
        raise _problem(path, f"a map variant is a mapping with 'nodes:', not {shape}; give {expected}",
                       line=line_of(root) if root is not None else None)
    nodes_node = None
    for key, key_node, value in pairs(root):
        if key not in _TOP_KEYS:
            raise _problem(path, f"unknown key {key!r}{did_you_mean(str(key), _TOP_KEYS)}", line=line_of(key_node))
        if key == "format" and (not isinstance(value, ScalarNode) or scalar_text(value) != MAP_FORMAT):
            raise _problem(path, f"not a map variant (format must be {MAP_FORMAT!r})", line=line_of(value))
        if key == "version" and (not isinstance(value, ScalarNode) or scalar_text(value) != str(MAP_VERSION)):
            raise _problem(path, f"map variant version {getattr(value, 'value', '?')!r} is not supported (this "
                           f"reads version {MAP_VERSION})", line=line_of(value))
        if key == "nodes":
            nodes_node = value
    if nodes_node is None:
        raise _problem(path, f"no 'nodes:'; give {expected}", line=1)
    edits: dict[str, NodeEdit] = {}
    if isinstance(nodes_node, ScalarNode) and is_null(nodes_node):
        return MapVariant(path, sha256_of_bytes([data]), edits)  # a map that changes nothing yet
    if not isinstance(nodes_node, MappingNode):
        raise _problem(path, f"'nodes' must be a mapping of node ids, not {kind(nodes_node)}",
                       line=line_of(nodes_node))
    for node_id, key_node, value in pairs(nodes_node):
        line = line_of(key_node)
        if node_id is None or not node_id.strip():
            raise _problem(path, "a node id must be plain text; write the corpus's id of the node", line=line)
        if has_control(node_id):
            raise _problem(path, f"node id {node_id!r} holds control characters; write the corpus's id of the node "
                           "as plain text", line=line, node=node_id)
        if node_id in edits:
            raise _problem(path, f"node {node_id!r} is given twice; give each node once", line=line, node=node_id)
        if node_id not in corpus.index:
            raise _unknown(path, node_id, line, corpus)
        if not isinstance(value, MappingNode):
            raise _problem(path, f"node {node_id!r} must be a mapping with 'title:' and/or 'summary:', not "
                           f"{kind(value)}", line=line_of(value), node=node_id)
        found: dict[str, str] = {}
        for field_name, field_key, field_value in pairs(value):
            if field_name not in _NODE_KEYS:
                raise _problem(path, f"unknown key {field_name!r} under node {node_id!r}"
                               f"{did_you_mean(str(field_name), _NODE_KEYS)}", line=line_of(field_key), node=node_id)
            found[field_name] = _text_of(path, field_value, field_name, node_id)
        if not found:
            raise _problem(path, f"node {node_id!r} changes nothing; give its 'title:' and/or 'summary:', or remove "
                           "it from the map", line=line, node=node_id)
        edits[node_id] = NodeEdit(found.get("title"), found.get("summary"))
    return MapVariant(path, sha256_of_bytes([data]), edits)


def apply_map(corpus: Corpus, variant: MapVariant) -> Corpus:
    """A copy of ``corpus`` (as its file holds it) whose nodes read as ``variant`` says: the titles and summaries it
    changes replaced, every other node and the corpus itself as they were (its hash is the corpus file's still)."""
    original = corpus.original
    index = original.index
    documents = []
    for node_id in index.ids():
        document = index[node_id]
        edit = variant.nodes.get(node_id)
        if edit is None:
            documents.append(document)
            continue
        metadata = dict(document.metadata)
        metadata.update({TITLE: edit.title} if edit.title is not None else {})
        metadata.update({SUMMARY: edit.summary} if edit.summary is not None else {})
        documents.append(RetrievedDocument(document.content, document.id, document.score, metadata))
    return replace(original, index=HierarchyIndex(documents), map=variant.ref, unmapped=original)


def with_map(corpus: Corpus, path: str | Path) -> Corpus:
    """``corpus`` with the map variant at ``path`` applied (:func:`read_map`, :func:`apply_map`)."""
    return apply_map(corpus, read_map(path, corpus.original))


SUGGESTION_SOURCE_CHARS: Final = 40_000
"""The most content a suggested summary is drawn from (the node's own, then its subtree's, nearest first)."""


def suggested_summary(corpus: Corpus, node_id: str) -> str:
    """A summary of what lies under ``node_id``, offline: the sentences of its subtree's content
    (:func:`subtree_text`) that best cover it, its title and its children's titles
    (:func:`~.summaries.extractive_summary`, as Markdown's and PDFs' summaries are made); ``""`` when nothing under
    it says anything."""
    return extractive_summary(subtree_text(corpus, node_id), title=corpus.title_of(node_id),
                              children=child_titles(corpus, node_id))


def subtree_text(corpus: Corpus, node_id: str) -> str:
    """The content under ``node_id`` a suggested summary is drawn from: its own, then its descendants', nearest
    first, up to :data:`SUGGESTION_SOURCE_CHARS` (what an LLM asked for a summary reads too)."""
    index = corpus.original.index
    texts: list[str] = []
    size = 0
    queue = [node_id]
    while queue and size < SUGGESTION_SOURCE_CHARS:
        current = queue.pop(0)
        content = index[current].content.strip()
        if content:
            texts.append(content)
            size += len(content)
        queue.extend(index.child_ids(current))
    return "\n\n".join(texts)[:SUGGESTION_SOURCE_CHARS]


def child_titles(corpus: Corpus, node_id: str) -> list[str]:
    """The titles of ``node_id``'s children, as the map now reads."""
    return [corpus.title_of(child) for child in corpus.original.index.child_ids(node_id)]


def map_text(corpus: Corpus, nodes: Mapping[str, NodeEdit]) -> str:
    """A map variant's file: a line that says what it is, then its fields (``nodes`` in the order given)."""
    body: dict[str, object] = {
        "format": MAP_FORMAT, "version": MAP_VERSION, "corpus": corpus.path.name,
        "nodes": {node_id: {key: value for key, value in (("title", edit.title), ("summary", edit.summary))
                            if value is not None} for node_id, edit in nodes.items()},
    }
    head = (f"# A map variant of {corpus.path.name} (reasoning-explorer): the titles and summaries it changes, by "
            "node id.\n# The corpus file is never written; walk/eval --map FILE and M in the explorer use this.\n")
    return head + yaml.safe_dump(body, allow_unicode=True, sort_keys=False, width=100)


def keep_edit(corpus: Corpus, path: Path, node_id: str, title: str, summary: str,
              reads: Iterable[Read | None] = ()) -> MapVariant:
    """Keep ``node_id``'s ``title`` and ``summary`` in the map variant at ``path`` (made, with its folder, if need
    be; the nodes it held before kept) and return the variant as written. A title or summary the corpus's own file
    holds is no change (that node leaves the map). :class:`CorpusError` for an empty title or summary, a map there
    that does not read (it is never written over: nothing is lost), or a file the gate refuses (the corpus, any
    other input in ``reads``)."""
    original = corpus.original
    if node_id not in original.index:
        raise _problem(path, f"no node {node_id!r} in {original.path.name}; choose a node of the tree", node=node_id)
    if has_control(node_id) or not node_id.strip():  # a map could not be read back naming it: never written
        raise _problem(path, f"node id {node_id!r} holds control characters; a map variant names plain ids only "
                       "(nothing was kept)", node=node_id)
    for what, text in (("title", title), ("summary", summary)):
        if not text.strip():
            raise _problem(path, f"an empty {what} for node {node_id!r}; write what it should say (nothing was "
                           "kept)", node=node_id)
    output, kept = Output("the map variant", path), [Read("the corpus", original.path), *reads]
    problem = overwrites(output, kept, edits=True)  # the one edit of the map variant, read as an input
    if problem is not None:  # before the file there is read: the corpus named as the map is refused, not parsed
        raise _problem(path, f"{problem.removeprefix(f'{path}: ')}; nothing was kept", node=node_id)
    nodes: dict[str, NodeEdit] = {}
    if path.exists() or path.is_symlink():
        nodes = dict(read_map(path, original).nodes)
    edit = NodeEdit(title if title != original.title_of(node_id) else None,
                    summary if summary != original.summary_of(node_id) else None)
    if edit == NodeEdit():
        nodes.pop(node_id, None)
    else:
        nodes[node_id] = edit
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(output, map_text(original, nodes), kept, doing="keep the map variant", example="handbook.map.yaml",
              replace=True, edits=True)  # the person's own variant, edited: what it held is kept in it
    except Refused as exc:
        raise _problem(path, f"{str(exc).removeprefix(f'{path}: ')}; nothing was kept") from None
    except OSError as exc:
        raise _problem(path, f"the map variant cannot be written ({exc.strerror or exc}); nothing was kept") from None
    return read_map(path, original)
