"""PageIndex tree JSON (VectifyAI/PageIndex): a PDF's table of contents as nested nodes.

The file is an object ``{"doc_name": ..., "doc_description": ..., "structure": [...]}``
or a bare list of root nodes. Each node has ``title``, ``node_id``,
``start_index``/``end_index`` (pages), sometimes ``summary`` or
``prefix_summary``, sometimes ``text``, and ``nodes`` (its children, in order).

How a node becomes a document:

- id: ``node_id`` (text; a whole number is taken as its decimal text; blank is an error);
- title: ``title`` (absent, null or blank: the id, as in the YAML format);
- summary: ``summary``, or else ``prefix_summary`` (absent or blank: ``""``);
- content: ``text`` where the node has it (even ``""``); otherwise a one-line
  placeholder saying which pages the node covers, and metadata
  ``contentPlaceholder: true``;
- metadata: ``startPage``/``endPage`` from ``start_index``/``end_index`` where present;
- children: ``nodes`` in file order (absent or null: a leaf).

A null value reads as an absent one throughout.

The corpus title is ``doc_name`` (absent or blank: the file stem) and the
source is the file stem. ``doc_description`` is checked to be text but not
kept: a :class:`Corpus` has no place for it and no node owns it. Other keys
are ignored, so newer PageIndex outputs still load.

Every problem is a :class:`CorpusError` naming the JSON path of the node
(``structure[3].nodes[1]``); nothing recurses per level of the tree.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from operator import itemgetter
from pathlib import Path
from typing import Any

import msgspec

from core import HierarchyError, HierarchyIndex, RetrievedDocument
from core.metadata import FrozenMetadata

from .errors import CorpusError
from .files import check_utf8, decode_text, read_bytes
from .model import OUR_KEYS_WITH_PARENT, Corpus, make_document, sha256_of_bytes
from .progress import CallbackFailed, Progress, Stage

FORMAT = "pageindex"
START_PAGE = "startPage"
END_PAGE = "endPage"
PLACEHOLDER = "contentPlaceholder"

# A JSON path as a chain of (parent, position among its siblings) pairs: each node adds one small
# tuple instead of a full path string, so a very deep tree costs memory linear in its size, not in
# size × depth, and no text is made for a path unless an error names it.
_Where = tuple["_Where | None", int]

# Paths longer than this many segments are shown with the middle elided, so that an error in a
# 100,000-deep tree is still one readable line.
_MAX_SHOWN_SEGMENTS = 16
_SHOWN_AT_EACH_END = 6


def read_pageindex(path: Path, progress: Progress | None = None) -> Corpus:
    """Load a PageIndex tree JSON file as a corpus (format ``"pageindex"``).

    Raises :class:`CorpusError` for an unreadable file, malformed JSON (with
    the line and column), JSON nested deeper than the parser allows, or a tree
    that is not a valid PageIndex tree (see :func:`build_pageindex`).

    The file is first decoded by ``msgspec`` straight into compact node
    records of the types below (checked as it reads, from the bytes, with no
    decoded copy of the file: a third of ``json``'s time and memory), and
    those are consumed as the nodes become documents. Whenever ``msgspec``
    refuses the file (a BOM, ``NaN``, a value of the wrong type, nesting past
    the recursion limit...) or its nodes do not load, the file is read again
    by ``json`` and the careful walk, exactly as before: so every file loads,
    or fails with the same message, as it always did, but one: a number too
    long for Python to convert (over 4,300 digits) under a key the loader
    ignores no longer stops the load, since ``msgspec`` skips such keys unread.
    Bytes that are not UTF-8 are refused wherever they sit (even under an
    ignored key, which ``msgspec`` would skip): the whole file is checked
    first, as ``json`` reads it.
    """
    path = Path(path)
    progress = progress or Progress(None)
    data = read_bytes(path, progress)
    sha256 = sha256_of_bytes([data])
    check_utf8(path, data)  # msgspec skips ignored keys unread: the bytes are decided first, as json would
    try:
        with progress.whole(Stage.PARSING):
            records = _DECODER.decode(data)
    except (msgspec.MsgspecError, RecursionError):
        pass  # json below says what is wrong, in its words (or reads what msgspec will not)
    else:
        del data
        try:
            return _Builder(path, progress).build_lean(records, sha256)
        except CallbackFailed:
            raise
        except Exception:  # anything amiss: json and the careful reader below decide, and name the problem
            del records
            data = read_bytes(path, progress)
            sha256 = sha256_of_bytes([data])
    text = decode_text(path, data)
    del data
    try:
        with progress.whole(Stage.PARSING):
            tree = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CorpusError(
            path, f"malformed JSON: {exc.msg} (column {exc.colno}); fix the JSON there", line=exc.lineno
        ) from None
    except RecursionError:
        # The C parser recurses per nesting level and stops at the interpreter's recursion limit
        # (about 500 levels of PageIndex nodes); raising that limit risks a real stack overflow.
        raise CorpusError(
            path,
            "JSON nested too deeply to read (the JSON parser's recursion limit); "
            "a tree this deep cannot be loaded: flatten it",
        ) from None
    except ValueError as exc:
        # Not a JSONDecodeError: e.g. an integer with more digits than Python converts.
        raise CorpusError(path, f"malformed JSON: {exc}; fix the value") from None
    del text
    return _build(tree, path, sha256, progress)


def build_pageindex(tree: object, path: Path, data: bytes = b"", progress: Progress | None = None) -> Corpus:
    """Build the corpus from an already parsed PageIndex tree (what ``json.loads`` returned).

    ``path`` names the file in errors and gives the source (its stem);
    ``data`` are the bytes the tree was read from, for ``Corpus.sha256``.
    The tree is walked depth-first with an explicit stack, so any depth loads.
    Raises :class:`CorpusError` for a missing or blank ``node_id`` (naming the
    node's JSON path and title), a duplicate ``node_id`` (naming both paths), a
    value of the wrong type (naming its path and what was expected) or an
    empty tree; anything unexpected also comes out as a :class:`CorpusError`.
    """
    return _build(tree, Path(path), sha256_of_bytes([data]), progress or Progress(None))


def _build(tree: object, path: Path, sha256: str, progress: Progress) -> Corpus:
    try:
        return _Builder(path, progress).build(tree, sha256)
    except CorpusError:
        raise
    except Exception as exc:  # a bug of ours must still be one clear line, never a traceback
        raise CorpusError(
            path, f"cannot load this PageIndex tree: {type(exc).__name__}: {exc}; please report this file"
        ) from None


def _kind(value: object) -> str:
    """How a JSON value reads to a person."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _render(where: _Where, first: str) -> str:
    """The JSON path, e.g. ``structure[3].nodes[1]`` (``first`` names the roots' list); the middle elided
    when it is very deep."""
    segments: list[str] = []
    current: _Where | None = where
    while current is not None:
        current, position = current
        segments.append(f"{first}[{position}]" if current is None else f".nodes[{position}]")
    segments.reverse()
    if len(segments) > _MAX_SHOWN_SEGMENTS:
        hidden = len(segments) - 2 * _SHOWN_AT_EACH_END
        segments = [*segments[:_SHOWN_AT_EACH_END], f"…({hidden} levels)…", *segments[-_SHOWN_AT_EACH_END:]]
    return "".join(segments)


def _page_text(start: int | None, end: int | None, document: str | None, file_name: str) -> str:
    """The placeholder content of a node whose text is not in the tree file."""
    if start is None and end is None:
        return f"The text of this node is not in {file_name}."
    of = document or "the source document"
    if start is None or end is None or start == end:
        return f"Covers page {start if start is not None else end} of {of}."
    return f"Covers pages {start}–{end} of {of}."


_Shape = tuple[Callable[[tuple[Any, ...]], FrozenMetadata], Callable[[tuple[Any, ...]], Any]]


def _shapes() -> list[_Shape]:
    """For each shape of node (pages or not, text or not, parent or not), how its metadata is made.

    A node's metadata values are picked from ``(start, end, True, id, source,
    title, summary, parent)``, in walk's order: pages, placeholder, then what
    make_document adds. Entry ``start? | end? << 1 | placeholder? << 2 |
    parent? << 3`` holds the maker for those keys and the picker of those values.
    """
    everything = (START_PAGE, END_PAGE, PLACEHOLDER, *OUR_KEYS_WITH_PARENT)
    shapes: list[_Shape] = []
    for code in range(16):
        present = (code & 1, code & 2, code & 4, 1, 1, 1, 1, code & 8)
        positions = [i for i, there in enumerate(present) if there]
        shapes.append((FrozenMetadata.maker(tuple(everything[i] for i in positions)), itemgetter(*positions)))
    return shapes


class _Node(msgspec.Struct, gc=False):
    """A PageIndex node as ``msgspec`` reads it: each field of the type the careful walk accepts (an id may be a
    whole number), absent and null alike ``None``; other keys are skipped. Not tracked by the garbage collector:
    a million of them hold no cycles."""

    title: str | None = None
    node_id: str | int | None = None
    start_index: int | None = None
    end_index: int | None = None
    summary: str | None = None
    prefix_summary: str | None = None
    text: str | None = None
    nodes: list[_Node] | None = None


class _Tree(msgspec.Struct, gc=False):
    """A PageIndex file's top-level object (its other keys skipped)."""

    doc_name: str | None = None
    doc_description: str | None = None
    structure: list[_Node] | None = None


_DECODER = msgspec.json.Decoder(_Tree | list[_Node])


class _Unusual(Exception):
    """The lean walk met something it does not handle: the careful one reads the file again."""


# The types a plain node's values have, checked at once (``type(v) in ...``: no call per value).
_TEXT_TYPES = frozenset({str, type(None)})
_PAGE_TYPES = frozenset({int, type(None)})


class _Builder:
    def __init__(self, path: Path, progress: Progress) -> None:
        self.path = path
        self.progress = progress
        self.first = ""

    def render(self, where: _Where) -> str:
        return _render(where, self.first)

    def fail(self, message: str, node: str | None = None) -> CorpusError:
        return CorpusError(self.path, message, node=node)

    def build(self, tree: object, sha256: str) -> Corpus:
        doc_name: str | None = None
        if isinstance(tree, dict):
            doc_name = self.optional_text(tree, "doc_name", "the document's name", None)
            self.optional_text(tree, "doc_description", "the document's description", None)
            if "structure" not in tree:
                raise self.fail('no "structure"; a PageIndex tree file has "doc_name" and "structure", its root nodes')
            roots = tree["structure"]
            if not isinstance(roots, list):
                raise self.fail(
                    f'"structure" must be a list of root nodes, not {_kind(roots)}; make it a JSON list', "structure"
                )
            self.first = "structure"
            if not roots:
                raise self.fail('"structure" is empty; a PageIndex tree needs at least one node', "structure")
        elif isinstance(tree, list):
            roots = tree
            if not roots:
                raise self.fail("the list of root nodes is empty; a PageIndex tree needs at least one node")
        else:
            raise self.fail(
                'a PageIndex tree file is an object with "structure" (or a list of root nodes), '
                f"not {_kind(tree)}; is this a PageIndex tree file?"
            )
        if doc_name is not None and not doc_name.strip():
            doc_name = None
        source = self.path.stem
        documents = self.walk(roots, source, doc_name)
        with self.progress.whole(Stage.INDEXING):
            index = HierarchyIndex(documents)
        return Corpus(self.path, FORMAT, source, doc_name or source, index, sha256)

    def build_lean(self, records: _Tree | list[_Node], sha256: str) -> Corpus:
        """What :meth:`build` gives for the same file read by ``json``, from ``msgspec``'s records of a
        well-formed tree; an exception at the first thing amiss (the caller then reads the file with ``json``)."""
        doc_name: str | None = None
        if isinstance(records, _Tree):
            doc_name, roots = records.doc_name, records.structure
            if roots is None:
                raise _Unusual  # no "structure", or null
        else:
            roots = records
        if not roots:
            raise _Unusual
        if doc_name is not None and not doc_name.strip():
            doc_name = None
        source = self.path.stem
        documents = self.lean_walk(roots, source, doc_name)
        with self.progress.whole(Stage.INDEXING):
            try:
                index = HierarchyIndex(documents)
            except HierarchyError:
                raise _Unusual from None  # duplicate ids: the careful walk names both paths
        return Corpus(self.path, FORMAT, source, doc_name or source, index, sha256)

    def lean_walk(self, roots: list[_Node], source: str, doc_name: str | None) -> list[RetrievedDocument]:
        """What :meth:`walk` gives for a well-formed tree, from ``msgspec``'s records (their types already
        checked); an exception at the first thing amiss.

        It names nothing (no JSON paths are kept): whoever calls it reads
        the file again with :meth:`walk` when it raises, and that says what
        is wrong. Duplicate ids are left to the index, which refuses them.
        Each list of nodes is emptied once its nodes are on the stack, so a
        node's record is freed as soon as its document is made and the next
        nodes reuse its memory: only for records nobody else holds.
        """
        documents: list[RetrievedDocument] = []
        append, tick, progress = documents.append, self.progress.tick, self.progress
        frozen, shapes, file_name = RetrievedDocument.frozen, _shapes(), self.path.name
        progress.start(Stage.BUILDING)
        items: list[_Node] = roots[::-1]
        parents: list[str | None] = [None] * len(items)
        roots.clear()
        pop_item, pop_parent = items.pop, parents.pop
        while items:
            item, parent = pop_item(), pop_parent()
            node_id: Any = item.node_id
            if type(node_id) is not str:
                if node_id is None:
                    raise _Unusual
                node_id = str(node_id)  # as node_id(): PageIndex writes "0001"; a tool writing 1 means the same
            elif not node_id.strip():
                raise _Unusual
            title, summary, text, start, end = item.title, item.summary, item.text, item.start_index, item.end_index
            if summary is None or not summary.strip():
                prefix_summary = item.prefix_summary
                summary = prefix_summary if prefix_summary is not None and prefix_summary.strip() else ""
            if title is None or not title.strip():
                title = node_id
            make, pick = shapes[
                (start is not None) | (end is not None) << 1 | (text is None) << 2 | (parent is not None) << 3
            ]
            if text is None:
                text = _page_text(start, end, doc_name, file_name)
            append(frozen(text, node_id, 0.0, make(pick((start, end, True, node_id, source, title, summary.strip(),
                                                         parent)))))
            if not len(documents) & 1023:
                tick(len(documents))
            children = item.nodes
            if children:
                items.extend(reversed(children))
                parents.extend([node_id] * len(children))
                children.clear()
        progress.finish(len(documents))
        return documents

    def walk(self, roots: list[Any], source: str, doc_name: str | None) -> list[RetrievedDocument]:
        """Depth-first in file order (a node before its children) with an explicit stack."""
        documents: list[RetrievedDocument] = []
        seen: dict[str, _Where] = {}
        progress = self.progress
        progress.start(Stage.BUILDING)
        stack: list[tuple[object, _Where, str | None]] = [
            (roots[i], (None, i), None) for i in range(len(roots) - 1, -1, -1)
        ]
        while stack:
            item, where, parent = stack.pop()
            if not isinstance(item, dict):
                label = self.render(where)
                raise self.fail(
                    f'node at {label} must be an object with "node_id" and "title", not {_kind(item)}; '
                    "write each node as a JSON object",
                    label,
                )
            raw_id = item.get("node_id")
            node_id = raw_id if type(raw_id) is str and raw_id.strip() else self.node_id(item, where)
            if node_id in seen:
                first_at, label = self.render(seen[node_id]), self.render(where)
                raise self.fail(
                    f"duplicate node_id {node_id!r} at {first_at} and at {label}; "
                    "node ids must be unique within a tree: rename one",
                    label,
                )
            seen[node_id] = where
            documents.append(self.document(item, where, node_id, parent, source, doc_name))
            progress.tick(len(documents))
            children = item.get("nodes")
            if children is None:
                continue  # a leaf: PageIndex leaves out "nodes" (null is read the same way)
            if not isinstance(children, list):
                label = self.render(where)
                raise self.fail(
                    f'node at {label}: "nodes" must be a list of nodes, not {_kind(children)}; '
                    "make it a JSON list, or leave it out for a leaf",
                    label,
                )
            for i in range(len(children) - 1, -1, -1):
                stack.append((children[i], (where, i), node_id))
        progress.finish(len(documents))
        return documents

    def node_id(self, item: dict[str, Any], where: _Where) -> str:
        raw = item.get("node_id")
        if raw is None:
            label = self.render(where)
            title = item.get("title")
            hint = f" (title {title!r})" if isinstance(title, str) else ""
            raise self.fail(f'node at {label}{hint} has no "node_id"; give every node a unique "node_id"', label)
        if isinstance(raw, int) and not isinstance(raw, bool):
            return str(raw)  # PageIndex writes "0001"; a tool writing 1 means the same node
        if not isinstance(raw, str):
            label = self.render(where)
            raise self.fail(
                f'node at {label}: "node_id" must be text, not {_kind(raw)}; write it as a JSON string', label
            )
        if not raw.strip():
            label = self.render(where)
            raise self.fail(f'node at {label}: "node_id" is blank; give every node a unique "node_id"', label)
        return raw

    def document(
        self,
        item: dict[str, Any],
        where: _Where,
        node_id: str,
        parent: str | None,
        source: str,
        doc_name: str | None,
    ) -> RetrievedDocument:
        get = item.get
        title, summary, prefix_summary, text = get("title"), get("summary"), get("prefix_summary"), get("text")
        start, end = get("start_index"), get("end_index")
        if not (
            type(title) in _TEXT_TYPES and type(summary) in _TEXT_TYPES and type(prefix_summary) in _TEXT_TYPES
            and type(text) in _TEXT_TYPES and type(start) in _PAGE_TYPES and type(end) in _PAGE_TYPES
        ):  # the plain case checked at once; otherwise one by one, so the first wrong value is named
            title = self.optional_text(item, "title", "the node's title", where)
            summary = self.optional_text(item, "summary", "the node's summary", where)
            prefix_summary = self.optional_text(item, "prefix_summary", "the node's summary", where)
            text = self.optional_text(item, "text", "the node's text", where)
            start = self.optional_page(item, "start_index", where)
            end = self.optional_page(item, "end_index", where)
        metadata: dict[str, Any] = {}
        if start is not None:
            metadata[START_PAGE] = start
        if end is not None:
            metadata[END_PAGE] = end
        if text is None:
            text = _page_text(start, end, doc_name, self.path.name)
            metadata[PLACEHOLDER] = True
        if summary is None or not summary.strip():
            summary = prefix_summary if prefix_summary is not None and prefix_summary.strip() else ""
        return make_document(
            node_id,
            source=source,
            parent=parent,
            title=title if title is not None and title.strip() else node_id,
            summary=summary.strip(),
            content=text,
            metadata=metadata,
        )

    def optional_text(self, item: dict[str, Any], key: str, what: str, where: _Where | None) -> str | None:
        """The text under ``key``; ``None`` when absent or null; a CorpusError for any other type."""
        value = item.get(key)
        if value is None or isinstance(value, str):
            return value
        label = self.render(where) if where is not None else None
        at = f"node at {label}: " if label is not None else ""
        raise self.fail(f'{at}"{key}" must be text, not {_kind(value)}; write {what} as a JSON string', label or key)

    def optional_page(self, item: dict[str, Any], key: str, where: _Where) -> int | None:
        value = item.get(key)
        if value is None:
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        label = self.render(where)
        raise self.fail(
            f'node at {label}: "{key}" must be a whole number (a page), not {_kind(value)}; '
            "write the page number as a JSON number",
            label,
        )
