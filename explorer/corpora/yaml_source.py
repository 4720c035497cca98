"""Reading YAML as positioned nodes, safely, so every error can name its line.

We compose (never construct arbitrary objects): only the safe loader's
scalars are ever turned into Python values. Aliases are refused where a
shared subtree would be walked twice, which also defuses "billion laughs".
"""

from __future__ import annotations

import difflib
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .errors import CorpusError
from .files import check_corpus_path, read_text

# libyaml's composer is several times faster and refuses absurd nesting with an error of its own;
# the pure-Python one recurses, so it is guarded against RecursionError below.
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

NULL_TAG = "tag:yaml.org,2002:null"
STR_TAG = "tag:yaml.org,2002:str"
SEQUENCE_TAG = "tag:yaml.org,2002:seq"
MAPPING_TAG = "tag:yaml.org,2002:map"
# The tag of a plain (unquoted) scalar whose type has not been worked out yet: see ``tag_of``.
LAZY_TAG = "tag:reasoning-explorer,2026:unresolved-plain"
# What YAML 1.1 reads as null when written plain (the safe resolver's own list).
NULL_WORDS = frozenset({"", "~", "null", "Null", "NULL"})

_RESOLVER = yaml.resolver.Resolver()
_CONSTRUCTOR = SafeConstructor()


class _LazyLoader(_Loader):  # type: ignore[misc]
    """The safe loader, except that plain scalars keep their type unresolved until asked.

    Resolving every plain scalar's type (a regular expression or two each) was
    about a third of composing a 100,000-node corpus, and the reader needs the
    type of very few: only whether a value is null, and the metadata values.
    """

    def resolve(self, kind: type[Node], value: object, implicit: object) -> str:
        if kind is ScalarNode:
            return LAZY_TAG if implicit[0] else STR_TAG  # type: ignore[index]
        return SEQUENCE_TAG if kind is SequenceNode else MAPPING_TAG


def compose(path: Path, text: str, *, lazy: bool = False) -> Node | None:
    """The document's root node (``None`` for an empty document), or a CorpusError with the line.

    ``lazy``: plain scalars get their type only when :func:`tag_of` (or
    ``is_null``, ``kind``, ``scalar_value``) asks for it.
    """
    loader = (_LazyLoader if lazy else _Loader)(text)
    try:
        return loader.get_single_node()  # type: ignore[no-any-return]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        column = f" (column {mark.column + 1})" if mark is not None else ""
        problem = exc.problem or exc.context or "unreadable YAML"
        context = exc.context_mark
        if exc.problem and exc.context and context is not None and mark is not None and context.line != mark.line:
            # e.g. an unclosed bracket: the problem is found at the end, the cause is where it opened.
            column = f" (column {mark.column + 1}; {exc.context} that starts at line {context.line + 1})"
        raise CorpusError(
            path, f"malformed YAML: {problem}{column}; check the indentation and quoting on that line", line=line
        ) from None
    except yaml.YAMLError as exc:
        raise CorpusError(path, f"malformed YAML: {exc}; check the file is a YAML mapping") from None
    except RecursionError:
        raise CorpusError(path, "malformed YAML: nested too deeply to read") from None
    finally:
        loader.dispose()


def read_mapping(path: Path, missing: str, expected: str) -> MappingNode:
    """The root mapping of a small YAML file (a question set, a navigator script), or a CorpusError.

    ``missing`` says what to do when there is no such file; ``expected`` names
    what the root should be (``"a question set is a mapping with ..."``).
    """
    try:
        if not stat.S_ISREG(check_corpus_path(path).st_mode):
            raise CorpusError(path, missing)  # a folder
    except CorpusError as error:
        # A missing file is told what to give; a path no file system could hold, or a FIFO, says so.
        raise CorpusError(path, missing) if error.reason.startswith("no such file") else error from None
    text, _ = read_text(path)
    root = compose(path, text)
    if not isinstance(root, MappingNode):
        found = "empty" if root is None else kind(root)
        raise CorpusError(path, f"{expected}, not {found}", line=line_of(root) if root is not None else None)
    return root


def line_of(node: Node) -> int:
    return int(node.start_mark.line) + 1


def tag_of(node: Node) -> str:
    """The node's tag, resolving a plain scalar's type on first use (see ``compose(lazy=True)``)."""
    if node.tag == LAZY_TAG:
        node.tag = _RESOLVER.resolve(ScalarNode, node.value, (True, False))  # type: ignore[no-untyped-call]
    return str(node.tag)


def kind(node: Node) -> str:
    """How a YAML node reads to a person: 'a list', 'a mapping', 'text', 'a number'..."""
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    tag = tag_of(node).rsplit(":", 1)[-1]
    return {"null": "empty", "bool": "true/false", "int": "a number", "float": "a number"}.get(tag, "text")


def is_null(node: Node) -> bool:
    if not isinstance(node, ScalarNode):
        return False
    if node.tag == LAZY_TAG:
        return node.value in NULL_WORDS
    return bool(node.tag == NULL_TAG)


def scalar_text(node: ScalarNode) -> str:
    """A scalar exactly as written (``1.10`` stays ``"1.10"``, ``yes`` stays ``"yes"``)."""
    return str(node.value)


def scalar_value(node: ScalarNode) -> Any:
    """A scalar as the safe loader types it (int, float, bool, str, None, date as ISO text)."""
    tag = tag_of(node)
    if tag == STR_TAG:
        return str(node.value)
    try:
        # A scalar's constructor keeps no state (construct_object would remember every node it built).
        value = _CONSTRUCTOR.yaml_constructors.get(tag, SafeConstructor.construct_undefined)(_CONSTRUCTOR, node)
    except yaml.YAMLError:
        return str(node.value)
    if isinstance(value, int | float | bool | str) or value is None:
        return value
    return str(node.value)  # timestamps and other typed scalars: keep the text as written


def pairs(node: MappingNode) -> Iterator[tuple[str | None, Node, Node]]:
    """(key text or None when the key is not a plain scalar, key node, value node)."""
    for key_node, value_node in node.value:
        key = scalar_text(key_node) if isinstance(key_node, ScalarNode) else None
        yield key, key_node, value_node


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``"; did you mean 'summary'?"`` or a list of the known words."""
    options = list(known)
    near = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if near:
        return f"; did you mean {near[0]!r}?"
    return f"; allowed keys: {', '.join(options)}"
