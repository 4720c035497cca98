"""A fast reader for the common shape of a YAML corpus, which refuses everything else.

A big corpus is nearly always written the same plain way: a block mapping
with ``source:``, ``title:`` and ``nodes:``, then block sequences of block
mappings, one key per line, each value a plain or quoted scalar on its line,
a folded or literal block scalar (``>-``, ``|``), a flow mapping of scalars
(``metadata: {rank: 0}``) or a nested list. Composing that through libyaml
builds an object per scalar, a mark per object and a Python call per event,
which is most of a 100,000-node load; this reads the same text a line at a
time and builds only the values the corpus keeps.

It is conservative. It returns ``None`` as soon as it meets anything it does
not fully understand (anchors, aliases, tags, multi-line plain or quoted
scalars, escapes it does not decode through libyaml, tabs, carriage returns,
document markers other than a first ``---``, keys it does not know, a
problem of any kind...), and the caller then composes the file with libyaml
as before: so what a file means, and every error message, stays libyaml's
and the full reader's. For any file it does read, it gives exactly the
values libyaml's composition gives the lean reader (plain scalars as written,
typed only in metadata, through the same resolver); the caller then applies
the lean reader's rules to the nodes (ids present and unique, a tree). A
differential test holds the two to the same corpus on the samples and on many
generated files with tricky scalars and layouts.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

import yaml
from yaml.nodes import ScalarNode

from .model import RESERVED_KEYS
from .yaml_source import LAZY_TAG, NULL_WORDS, scalar_value

# One line: indentation, then either a (possibly "- "-prefixed) simple key and its value, or anything else.
# Every line matches (the second branch takes anything), so the list of matches is the list of lines.
_LINE = re.compile(r"^( *)(?:(- +)?([A-Za-z0-9_][A-Za-z0-9_.\-]{0,127}):(?: +(?:#.*|(.*)))?|(.*))$", re.M)
_SINGLE = re.compile(r"'((?:[^']|'')*)'(?: +#.*| *)")
_DOUBLE = re.compile(r'"((?:[^"\\]|\\.)*)"(?: +#.*| *)')
_BLOCK_HEADER = re.compile(r"([|>])(-?)(?: +#.*| *)")
# A pair of a flow mapping: a simple key, then a value that is double- or single-quoted without escapes, or
# plain without anything that could end or start something else in flow context; then "," or "}".
_FLOW_PAIR = re.compile(
    r" *([A-Za-z0-9_][A-Za-z0-9_.\-]{0,127}): +"
    r"(?:\"([^\"\\]*)\"|'([^']*)'|"
    r"((?:[A-Za-z0-9_.~+\u00a0-\U0010ffff]|-[A-Za-z0-9.])[^,{}\[\]:#\"'!&*|>%@`?]*)) *([,}])"
)
_FLOW_END = re.compile(r" *(?: #.*)?")
_EMPTY_LIST = re.compile(r"\[ *\](?: +#.*| *)")
# Control characters (tab, carriage return included: refused rather than interpreted) and what libyaml reads
# as a line break or a byte order mark; the file's text has none of these or the fast reader is not used.
_ASCII_REFUSED = bytes([*range(0, 10), *range(11, 32), 127])
_UNICODE_REFUSED = re.compile("[\x80-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
# A plain scalar may not start with these (or starts something else: a comment, a tag, an alias...).
_NOT_PLAIN_START = frozenset("-?:,[]{}#&*!|>'\"%@` ")

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TEXT_KEYS = frozenset({"id", "title", "summary", "content"})
_TOP_KEYS = frozenset({"source", "title", "nodes"})

_TOP, _SEQ, _NODE, _META = range(4)
_MAX_DEPTH = 500  # open collections: well under libyaml's own limit


# A node: its fields as written (id, title, summary, content: text or None for null; metadata: a dict or None;
# children: None), its parent's fields (None for a root), and the line where its mapping starts.
FastRecord = tuple[dict[str, Any], dict[str, Any] | None, int]


class FastCorpus(NamedTuple):
    """What the fast reader found: the source (not blank), the title, and every node in file order."""

    source: str
    title: str
    records: list[FastRecord]


class _Refused(Exception):
    """Something this reader does not handle: the caller composes the file with libyaml instead."""


def read_common_shape(text: str) -> FastCorpus | None:
    """The corpus in ``text`` (a BOM already dropped), or ``None`` when it is not in the common shape.

    ``None`` says nothing about whether the file is good: only that this
    reader leaves it to libyaml and the readers that check every rule.
    """
    data = text.encode("utf-8", "surrogatepass")  # no byte below 0x80 is part of a longer character
    if len(data.translate(None, _ASCII_REFUSED)) != len(data):
        return None
    del data
    if not text.isascii() and _UNICODE_REFUSED.search(text):
        return None
    try:
        return _Reader(text).read()
    except _Refused:
        return None


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.raw_lines: list[str] | None = None
        self.typed: dict[str, Any] = {}

    def raw(self, lineno: int) -> str:
        """Line ``lineno`` (1-based) as written, for block scalars (which keep what the line pattern drops)."""
        if self.raw_lines is None:
            self.raw_lines = self.text.split("\n")
        return self.raw_lines[lineno - 1]

    def read(self) -> FastCorpus:
        text = self.text
        rows = _LINE.findall(text)
        if len(rows) != text.count("\n") + 1:
            raise _Refused  # not one match per line: cannot happen with the catch-all branch, but never assume
        top: dict[str, Any] = {}
        records: list[FastRecord] = []
        # Open collections, innermost last: (indent, kind, the mapping's values or a sequence's owner's).
        stack: list[tuple[int, int, dict[str, Any]]] = [(0, _TOP, top)]
        # The innermost collection, and the indentation of its keys as written (for a quick comparison).
        top_indent, top_kind, target, top_pad = 0, _TOP, top, ""
        pending: tuple[str, int, dict[str, Any]] | None = None  # a key whose value is on the lines below
        block: _Block | None = None
        text_keys, null_words, not_plain_start = _TEXT_KEYS, NULL_WORDS, _NOT_PLAIN_START
        flows: dict[str, tuple[tuple[str, Any], ...]] = {}  # the same few flow mappings recur: read each once
        started = False
        for lineno, (indent, dash, key, value, other) in enumerate(rows, 1):
            if block is not None:
                if block.take(self.raw(lineno)):
                    continue
                block.finish()
                block = None
            if not key:
                if not other or other[0] == "#":
                    continue  # a blank line or a comment
                if other == "---" and not indent and not started:
                    started = True  # a document start before anything else
                    continue
                raise _Refused
            started = True
            if pending is not None:
                name, owner_indent, owner = pending
                pending = None
                x = len(indent)
                if name == "metadata":
                    if not dash and x > owner_indent:
                        meta: dict[str, Any] = {}
                        owner["metadata"] = meta
                        stack.append((x, _META, meta))
                        top_indent, top_kind, target, top_pad = x, _META, meta, indent
                elif dash and x >= owner_indent:  # children or nodes: a block sequence (maybe indentless)
                    stack.append((x, _SEQ, owner))
                    top_indent, top_kind, target = x, _SEQ, owner
            if dash:
                x = len(indent)
                while top_indent > x:
                    stack.pop()
                    top_indent, top_kind, target = stack[-1]
                if top_indent != x or top_kind != _SEQ or len(stack) > _MAX_DEPTH:
                    raise _Refused  # (libyaml refuses deep nesting, at 1,000 collections: leave it to say so)
                fields: dict[str, Any] = {}
                records.append((fields, None if target is top else target, lineno))
                top_pad = indent + " " * len(dash)
                top_indent, top_kind, target = len(top_pad), _NODE, fields
                stack.append((top_indent, _NODE, fields))
            elif indent != top_pad:
                x = len(indent)
                while top_indent > x or (top_indent == x and top_kind == _SEQ):
                    stack.pop()
                    top_indent, top_kind, target = stack[-1]
                if top_indent != x:
                    raise _Refused
                top_pad = indent
            if top_kind == _NODE:
                if key in text_keys and key not in target:
                    if not value:
                        target[key] = None
                        continue
                    # The two common cases first, checked with a few string operations each.
                    first = value[0]
                    if first == "'":
                        if value[-1] == "'" and value.count("'") == 2:
                            target[key] = value[1:-1]
                            continue
                    elif (
                        first not in not_plain_start
                        and value[-1] not in " :"
                        and ": " not in value
                        and " #" not in value
                    ):
                        target[key] = None if value in null_words else value
                        continue
                    if first in "|>":
                        block = _Block(value, top_indent, target, key)
                    else:
                        target[key] = _scalar(value, null_words)
                elif key in target:
                    raise _Refused
                elif key == "metadata":
                    target[key] = None
                    if not value:
                        pending = ("metadata", top_indent, target)
                    elif value[0] == "{":
                        items = flows.get(value)
                        if items is None:
                            items = self.flow_mapping(value)
                            if len(flows) < 4096:
                                flows[value] = items
                        target[key] = dict(items)
                    elif _scalar(value, null_words) is not None:
                        raise _Refused
                elif key == "children":
                    target[key] = None
                    if not value:
                        pending = ("children", top_indent, target)
                    elif _EMPTY_LIST.fullmatch(value) is None and _scalar(value, null_words) is not None:
                        raise _Refused
                else:
                    raise _Refused  # a key a node does not have
            elif top_kind == _META:
                if key in RESERVED_KEYS:
                    raise _Refused
                if not value:
                    target[key] = self.typed_plain("")
                elif value[0] in "'\"":
                    target[key] = _scalar(value, null_words)
                else:
                    target[key] = self.typed_plain(_plain(value))
            else:  # the top mapping
                if key in target or key not in _TOP_KEYS:
                    raise _Refused
                if key == "nodes":
                    if value:
                        raise _Refused
                    target[key] = True
                    pending = ("nodes", 0, top)
                elif not value:
                    target[key] = None
                elif value[0] in "|>":
                    block = _Block(value, 0, target, key)
                else:
                    target[key] = _scalar(value, null_words)
        if block is not None:
            if not text.endswith("\n"):
                raise _Refused  # its last line has no line break to keep or strip
            block.finish()
        if "nodes" not in top or not records:
            raise _Refused
        source, title = top.get("source"), top.get("title")
        if source is None or not source.strip():
            raise _Refused
        return FastCorpus(source, source if title is None else title, records)

    def typed_plain(self, text: str) -> Any:
        """A plain scalar's value as the safe loader types it (the same few values recur: remembered)."""
        typed = self.typed
        if text in typed:
            return typed[text]
        value = typed[text] = scalar_value(ScalarNode(LAZY_TAG, text))
        return value

    def flow_mapping(self, value: str) -> tuple[tuple[str, Any], ...]:
        """``{a: 1, b: "x"}`` on one line, with simple keys and scalar values: its pairs, a key given twice once."""
        values: dict[str, Any] = {}
        if _FLOW_END.fullmatch(value, 1) is not None:
            raise _Refused  # "{" alone: a flow mapping over several lines
        position = 1
        if value[1:].lstrip(" ").startswith("}"):
            position = value.index("}") + 1
        else:
            while True:
                pair = _FLOW_PAIR.match(value, position)
                if pair is None:
                    raise _Refused
                key, double, single, plain, end = pair.groups()
                if key in RESERVED_KEYS:
                    raise _Refused
                if plain is not None:
                    values[key] = self.typed_plain(plain.rstrip(" "))
                else:
                    values[key] = double if double is not None else single
                position = pair.end()
                if end == "}":
                    break
        if _FLOW_END.fullmatch(value, position) is None:
            raise _Refused
        return tuple(values.items())


def _scalar(value: str, null_words: frozenset[str]) -> str | None:
    """A one-line scalar's text (``None`` for a plain null), quoted or plain; _Refused when unsure."""
    first = value[0]
    if first == "'":
        match = _SINGLE.fullmatch(value)
        if match is None:
            raise _Refused
        text: str = match.group(1)
        return text.replace("''", "'")
    if first == '"':
        match = _DOUBLE.fullmatch(value)
        if match is None:
            raise _Refused
        text = match.group(1)
        return _unescape(text) if "\\" in text else text
    text = _plain(value)
    return None if text in null_words else text


def _plain(value: str) -> str:
    """A plain scalar on one line, a trailing comment dropped; _Refused for anything that is not surely one."""
    first = value[0]
    if first in _NOT_PLAIN_START and not (first == "-" and len(value) > 1 and value[1] != " "):
        raise _Refused
    if " #" in value:
        value = value[: value.index(" #")]
    value = value.rstrip(" ")
    if ": " in value or value.endswith(":"):
        raise _Refused
    return value


def _unescape(text: str) -> str:
    """A double-quoted scalar's escapes, decoded by libyaml itself."""
    try:
        value = yaml.load(f'"{text}"', Loader=_LOADER)
    except yaml.YAMLError:
        raise _Refused from None
    if not isinstance(value, str):
        raise _Refused
    return value


class _Block:
    """A literal (``|``, ``|-``) or folded (``>``, ``>-``) block scalar, taken a line at a time.

    Only the plain cases: no indentation indicator, no ``+``, no blank lines
    before the first line, no lines of spaces, and for a folded scalar no
    line indented further than the first and none ending in a space.
    """

    __slots__ = ("chomp", "folded", "indent", "key", "lines", "owner_indent", "target")

    def __init__(self, header: str, owner_indent: int, target: dict[str, Any], key: str) -> None:
        match = _BLOCK_HEADER.fullmatch(header)
        if match is None:
            raise _Refused
        self.folded = match.group(1) == ">"
        self.chomp = match.group(2) == "-"
        self.owner_indent = owner_indent
        self.target = target
        self.key = key
        self.indent = -1
        self.lines: list[str] = []

    def take(self, raw: str) -> bool:
        """Whether ``raw`` is a line of the scalar (False: it ends it, and is read as usual)."""
        if not raw:
            if self.indent < 0:
                raise _Refused  # a blank line before the first: the indentation would be guessed
            self.lines.append("")
            return True
        body = raw.lstrip(" ")
        indent = len(raw) - len(body)
        if not body:
            raise _Refused  # a line of spaces
        if self.indent < 0:
            if indent <= self.owner_indent:
                raise _Refused  # an empty block scalar
            self.indent = indent
        elif indent < self.indent:
            return False
        line = raw[self.indent :]
        if self.folded and (line[0] == " " or line[-1] == " "):
            raise _Refused
        self.lines.append(line)
        return True

    def finish(self) -> None:
        lines = self.lines
        if self.indent < 0:
            raise _Refused
        while not lines[-1]:
            lines.pop()
        if not self.folded:
            text = "\n".join(lines)
        else:
            parts = [lines[0]]
            blanks = 0
            for line in lines[1:]:
                if not line:
                    blanks += 1
                    continue
                parts.append("\n" * blanks if blanks else " ")
                parts.append(line)
                blanks = 0
            text = "".join(parts)
        self.target[self.key] = text if self.chomp else text + "\n"
