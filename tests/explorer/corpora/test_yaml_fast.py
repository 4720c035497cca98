"""The fast reader of the common YAML shape reads exactly what libyaml and the lean reader read, or refuses.

Every case is checked the same way (``agree``): when libyaml cannot compose
the file, or the lean reader gives up on it, the fast reader must have
refused it too; when the fast reader reads a file, its corpus must be the
lean reader's, line numbers included. Loading then gives that same corpus,
or, for a bad file, the full reader's own first error.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from core import HierarchyMetadata
from explorer.corpora import CorpusError, load_corpus, read_text, yaml_corpus
from explorer.corpora.model import sha256_of_bytes
from explorer.corpora.progress import Progress
from explorer.corpora.yaml_fast import read_common_shape
from explorer.corpora.yaml_source import compose

SAMPLES = Path(__file__).resolve().parents[3] / "sample_corpora"


def snapshot(corpus):
    index = corpus.index
    nodes = [
        (node_id, index[node_id].metadata.get(HierarchyMetadata.PARENT_ID), dict(index[node_id].metadata),
         index[node_id].content)
        for node_id in index.ids()
    ]
    return (corpus.source, corpus.title, corpus.sha256, dict(corpus.lines), nodes)


def agree(path: Path) -> str:
    """How the readers took the file ("fast", "refused" or "malformed"), after checking they agree."""
    text, data = read_text(path)
    sha256 = sha256_of_bytes([data])
    common = read_common_shape(text)
    try:
        root = compose(path, text, lazy=True)
    except CorpusError:
        assert common is None, "the fast reader read a file libyaml cannot compose"
        return "malformed"
    lean = yaml_corpus._read_well_formed(path, root, sha256, Progress(None))
    fast = None if common is None else yaml_corpus._from_common_shape(path, common, sha256, Progress(None))
    if fast is None:
        return "refused"
    assert lean is not None, "the fast reader read a file the lean reader gives up on"
    assert snapshot(fast) == snapshot(lean)
    assert snapshot(load_corpus(path)) == snapshot(lean)
    return "fast"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "c.yaml"
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("name", ["handbook", "regulation", "specification", "contract"])
def test_every_sample_is_read_fast_and_as_libyaml_reads_it(name):
    assert agree(SAMPLES / f"{name}.yaml") == "fast"


def test_the_benchmark_shape_is_read_fast(tmp_path):
    out = ["source: synthetic", "title: Synthetic corpus", "nodes:"]
    for i in range(3):
        for depth, node in ((1, f"n{i}"), (2, f"n{i}0"), (3, f"n{i}00")):
            pad = "    " * depth
            out += [f"{pad[:-2]}- id: {node}", f"{pad}title: 'Section {node}: audit security'",
                    f"{pad}summary: How audit relates to leave.",
                    f"{pad}content: How audit relates to leave. Section {node} explains the rules.",
                    f"{pad}metadata: {{rank: {i}}}", f"{pad}children:" if depth < 3 else f"{pad}children: []"]
    assert agree(write(tmp_path, "\n".join(out) + "\n")) == "fast"


HEAD = "source: s\nnodes:\n"

READ_FAST = [
    # scalars taken as written, typed only in metadata
    HEAD + "  - id: 1.10\n    title: yes\n    summary: null\n    content: ~\n    metadata: {a: 1, b: 1.5, c: yes, d: ~}\n",
    HEAD + "  - id: a\n    metadata: {e: '1', f: 2024-01-02, g: 0x1F, h: 0o17, i: -3, j: 1e3, k: .inf, l: finance team}\n",
    HEAD + "  - id: a\n    metadata: {s: \"2024-09-02\", t: 'x', null: 1, yes: no}\n",
    HEAD + "  - id: a\n    metadata: {}\n  - id: b\n    metadata:\n    children:\n",
    HEAD + "  - id: a\n    metadata:\n      rank: 3\n      owner: 'it''s'\n      when: 2024-01-02\n      empty:\n",
    # quotes, colons, hashes, escapes, unicode
    HEAD + "  - id: a\n    title: 'Section 1: audit # not a comment'\n    summary: \"say \\\"hi\\\" \\u00e9\\t\\x41\"\n",
    HEAD + "  - id: a\n    title: C# and a:b\n    summary: it's — ü 😀\n    content: a - b, [c] {d}\n",
    HEAD + "  - id: a   # the first\n    title: x  # a comment\n    summary: 'q'   # another\n    content: \"\"\n",
    HEAD + "  - id: a\n    title: ''\n    summary: 'null'\n    content: '''quoted'''\n",
    HEAD + "  - id: -1\n    title: ---\n    summary: ...\n    content: =\n",
    # block scalars
    HEAD + "  - id: a\n    content: >-\n      folded\n      lines\n\n      new paragraph\n    title: |\n      one\n        two\n\n      three\n",
    HEAD + "  - id: a\n    content: |-\n      kept: as # is\n      - not a list\n    summary: > # comment\n      x\n\n\n",
    # layout: comments, blank lines, document start, indentless lists, wide dashes, key order
    "# a corpus\n---\nnodes:\n- id: a\n  children:\n  - id: b\n  title: A\n- id: c\nsource: s\ntitle: T\n",
    HEAD + "  -   id: a\n      children: # kids\n\n        # the first\n          - id: b\n\n  - id: c\n    children: [ ]\n",
    HEAD + "  - title: A\n    children:\n      - id: b\n    id: a\n",
    HEAD + "    - id: a\n      children:\n          - id: b\n            children:\n             - id: c\n    - id: d\n",
    "source: s\ntitle: ~\nnodes:  # roots\n  - id: a\n    children: ~\n  - id: b\n    children: null\n",
]


@pytest.mark.parametrize("text", READ_FAST)
def test_common_shapes_are_read_fast_and_as_libyaml_reads_them(tmp_path, text):
    assert agree(write(tmp_path, text)) == "fast"


def test_a_byte_order_mark_is_dropped_before_either_reader(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + (HEAD + "  - id: a\n").encode())
    assert agree(path) == "fast"


REFUSED = [
    HEAD + "  - id: a\n\ttitle: x\n",  # a tab
    HEAD.replace("\n", "\r\n") + "  - id: a\r\n",  # CRLF
    HEAD + "  - id: a\n    title: x\ty\n",  # a tab inside text
    HEAD + "  - &n {id: a}\n",  # an anchor
    HEAD + "  - id: a\n    title: &t x\n  - id: b\n    title: *t\n",  # an alias
    HEAD + "  - id: a\n    title: !!str 1\n",  # a tag
    HEAD + "  - id: a\n    title: a long\n      title\n",  # a multi-line plain scalar
    HEAD + "  - id: a\n    title: 'a long\n      title'\n",  # a multi-line quoted scalar
    HEAD + "  - id: a\n    title: \"a \\\n      b\"\n",  # an escaped line break
    HEAD + "  - {id: a, children: [{id: b}]}\n",  # flow nodes
    HEAD + "  - id: a\n    children: [{id: b}]\n",
    HEAD + "  - id: a\n    content: |+\n      kept\n\n",  # keep chomping
    HEAD + "  - id: a\n    content: |2\n        indented\n",  # an indentation indicator
    HEAD + "  - id: a\n    content: |\n      x\n      ",  # a line of spaces in a block scalar
    HEAD + "  - id: a\n    content: |\n\n      x\n",  # a blank line before the first
    HEAD + "  - id: a\n    content: >\n      x\n        more indented\n",
    HEAD + "  - id: a\n    content: |\n      no final line break",
    "%YAML 1.1\n---\n" + HEAD + "  - id: a\n",  # a directive
    HEAD + "  - id: a\n...\n",  # a document end
    HEAD + "  - id: a\n    title: x\u2028y\n",  # a line separator
    HEAD + "  - id: a\n    title: x\x85y\n",  # NEL
    HEAD + "  - id: a\n    title: x\n  \n  - id: b\n    ? title\n    : y\n",  # a complex key
    HEAD + "  - id: a\n    'title': x\n",  # a quoted key
    HEAD + "  - id: a\n    metadata: {a: 'it''s'}\n",  # an escape in a flow mapping
    HEAD + "  - id: a\n    metadata: {a: 12:30}\n",  # a colon in a flow scalar
    HEAD + "  - id: a\n    metadata: {a: 1,\n      b: 2}\n",  # a flow mapping over lines
    HEAD + "  - id: a\n    title: x: y\n",  # a mapping where a scalar is read
]


@pytest.mark.parametrize("text", REFUSED)
def test_anything_unusual_is_left_to_libyaml(tmp_path, text):
    assert agree(write(tmp_path, text)) in ("refused", "malformed")


def test_deep_nesting_is_left_to_libyaml(tmp_path):
    lines = ["source: s", "nodes:"]
    for depth in range(600):
        lines += ["  " * depth + f"- id: n{depth}", "  " * depth + "  children:"]
    assert agree(write(tmp_path, "\n".join(lines) + "\n")) in ("refused", "malformed")


BAD = [
    HEAD + "  - id: a\n  - id: a\n",  # a duplicate id
    HEAD + "  - id: a\n    titel: A\n",  # an unknown key
    HEAD + "  - id: a\n    title: A\n    title: B\n",  # a key given twice
    HEAD + "  - id: a\n    metadata: {hierarchyId: x}\n",  # a reserved key
    HEAD + "  - id: a\n    metadata:\n      hierarchyId: x\n",
    "source: ~\nnodes:\n  - id: a\n",  # a null source
    "source: '  '\nnodes:\n  - id: a\n",  # a blank source
    HEAD + "  - id: ''\n",  # a blank id
    HEAD + "  - title: no id\n",
    HEAD + "  - id: a\n    children: {id: b}\n",  # children not a list
    HEAD + "  - id: a\n    children:\n      id: b\n",
    HEAD + "  - id: a\n    metadata: [1]\n",
    HEAD + "  - id: a\n    metadata: x\n",
    HEAD + "  - id: a\n    metadata:\n      - 1\n",
    HEAD + "  - id: a\n    metadata:\n      a:\n        b: 1\n",  # a nested metadata value
    HEAD + "  - id: a\n    title:\n    - x\n",  # a list where text goes
    HEAD + "  - id: a\n    title:\n      x: y\n",
    "source: s\nnodes: []\n",
    "source: s\nnodes:\n",
    "source: s\n",
    "nodes:\n  - id: a\n",
    "source: s\nsource: t\nnodes:\n  - id: a\n",
    "source: s\nextra: 1\nnodes:\n  - id: a\n",
    "",
    "- id: a\n",
    # malformed YAML
    HEAD + "  - id: a\n   title: x\n",
    HEAD + "  - id: a\n     title: x\n",
    HEAD + "  - id: a\n    title: 'unclosed\n",
    HEAD + "  - id: a\n  title: x\n",
    HEAD + "  - id: a\n    - id: b\n",
    HEAD + "  - id: a\n    metadata: {a: 1\n",
    HEAD + "  - id: a\n    title: x\n      more: y\n",
    HEAD + "  - id: a\n    content: >-\n   x\n",
    HEAD + "  - id: a\n    content: >-\n      x\n     y\n",
    HEAD + "- id: a\n  - id: b\n",
    "source: s\n  nodes:\n  - id: a\n",
]


@pytest.mark.parametrize("text", BAD)
def test_every_problem_is_left_to_the_full_reader(tmp_path, text):
    path = write(tmp_path, text)
    assert agree(path) in ("refused", "malformed")
    reading = yaml_corpus.YamlCorpusReading(path)
    try:
        root = compose(path, text, lazy=True)
    except CorpusError as error:
        expected = str(error)
    else:
        yaml_corpus._Reader(path, reading).read(root, "")
        assert reading.errors
        expected = str(reading.errors[0])
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)
    assert str(caught.value).split(" (and ")[0] == expected


# ---------------------------------------------------------------------------------------------------------------
# Generated corpora with tricky scalars and layouts: each is read as libyaml reads it, or refused

PLAIN = ["Billing rules", "refund", "How audit relates to leave.", "x", "1.10", "yes", "null", "it's", "C# code",
         "a-b", "é — ü", "1", "2024-01-02", "Section 7 a b"]
TRICKY = ["a: b", "a:b", "a #b", "a#b", "#x", "x:", 'say "hi"', "back\\slash", "tab\there", "-x", "- x", "?x",
          ":x", "*a", "&a", "!x", "%x", "@x", "`x", "|x", ">x", "[x]", "{x}", ",x", "a  b", " lead", "trail ",
          "'q'", '"q"', "---", "...", "a\nb", "a\n\nb", "\u2028", "\x85", "\ufeff", "\x07", "~", "", "12:30",
          "0x1F", "<<", "x\r", "''", "a ' b", "\\n", "😀", "NULL", "on"]
METADATA = ["1", "2.5", "true", "-3", "1e3", "finance team", "x", "2024-01-02", "~", "0o17", "yes", "'1'",
            '"two words"', "é", "0x1F", ".inf", "Null", "+1"]
TRICKY_METADATA = ["a: b", "[1]", "12:30", "'it''s'", "x #y", "*a", "!!int 1", '"\\t"', "", "{a: 1}", "-"]


class Generator:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.tricky = self.rng.choice([0.0, 0.03, 0.1, 0.3])
        self.count = 0

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def words(self) -> str:
        rng = self.rng
        if not self.chance(self.tricky):
            return " ".join(rng.choice(PLAIN) for _ in range(rng.choice([1, 1, 2, 3])))
        return "".join(rng.choice(TRICKY + PLAIN) for _ in range(rng.choice([1, 1, 2])))

    def scalar(self, text: str, indent: int) -> str:
        rng = self.rng
        style = rng.choice(["plain", "plain", "single", "double", "block"])
        if style == "plain":
            return text.replace("\n", "\n" + " " * (indent + 2))
        if style == "single":
            return "'" + text.replace("'", "''") + "'"
        if style == "double":
            escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
            return '"' + (escaped.replace("\t", "\\t") if self.chance(0.5) else escaped) + '"'
        header = rng.choice(["|", "|-", ">", ">-", "> # c"] + (["|+", "|2", ">+"] if self.chance(self.tricky) else []))
        body = rng.choice([text, text + "\nsecond line", "first\n\nthird", "first\n  more\nless", text + "\n\n"])
        if self.chance(self.tricky):
            body = rng.choice(["  more\nless", "\nfirst", "last\n  ", "a \nb"])
        step = rng.choice([2, 2, 4] + ([1] if self.chance(self.tricky) else []))
        return header + "\n" + "\n".join(" " * (indent + step) + line if line else "" for line in body.split("\n"))

    def metadata(self, indent: int) -> str:
        rng = self.rng
        pairs = [(rng.choice(["rank", "owner", f"k{n}", "x-y", "a.b"]),
                  rng.choice(TRICKY_METADATA if self.chance(self.tricky) else METADATA))
                 for n in range(rng.choice([0, 1, 1, 2, 3]))]
        if self.chance(0.6):
            return "{" + rng.choice([", ", ",", " , "]).join(f"{k}: {v}" for k, v in pairs) + rng.choice(["}", " }", "} # c"])
        if not pairs:
            return rng.choice(["", "~", "{}"])
        return "\n" + "\n".join(" " * (indent + 2) + f"{k}: {v}" for k, v in pairs)

    def node(self, out: list[str], indent: int, dash: str, depth: int) -> None:
        rng = self.rng
        keys = [k for k in ("id", "title", "summary", "content", "metadata", "children") if k == "id" or self.chance(0.7)]
        if self.chance(0.3):
            rng.shuffle(keys)
        if self.chance(self.tricky / 5):
            keys.append(rng.choice(["titel", "id", "title"]))
        inner = indent + len(dash)
        for n, key in enumerate(keys):
            lead = " " * indent + dash if n == 0 else " " * inner
            if key == "id":
                self.count += 1
                value = rng.choice([f"n{self.count}", f"1.{self.count}0", f"'n {self.count}'", f'"n\\t{self.count}"'])
                if self.chance(self.tricky / 3):
                    value = rng.choice(["dup", "~", "''"])
                out.append(f"{lead}id: {value}{rng.choice(['', '', ' # c', ' '])}")
            elif key == "metadata":
                out.append(f"{lead}metadata: {self.metadata(inner)}".rstrip(" "))
            elif key == "children":
                count = rng.choice([0, 1, 2, 3]) if depth < 4 else 0
                if count == 0:
                    out.append(f"{lead}children:{rng.choice(['', ' []', ' ~', ' [ ]'])}")
                    continue
                out.append(f"{lead}children:{rng.choice(['', '', ' # kids'])}")
                if self.chance(0.2):
                    out.append(rng.choice(["", "  # c", "#", "   "]))
                child_indent = inner if self.chance(0.2) else inner + rng.choice([2, 2, 4, 1])
                child_dash = rng.choice(["- ", "- ", "-  "])
                for _ in range(count):
                    self.node(out, child_indent, child_dash, depth + 1)
            else:
                out.append(f"{lead}{key}: {self.scalar(self.words(), inner)}")
            if self.chance(0.05):
                out.append(rng.choice(["  # comment", "", "#c", " ", "\t" if self.chance(self.tricky) else ""]))

    def corpus(self) -> str:
        rng = self.rng
        out = [rng.choice(["---", "# head", ""])] if self.chance(0.1) else []
        source = rng.choice(["s", "synthetic", "'null'", "a b"])
        top = [f"source: {source}", f"title: {self.scalar(self.words(), 0)}"]
        if self.chance(0.3):
            rng.shuffle(top)
        out += top if self.chance(0.7) else top[:1]
        out.append("nodes:" + rng.choice(["", "", " # roots"]))
        indent = rng.choice([0, 2, 2, 4])
        for _ in range(rng.choice([1, 2, 3])):
            self.node(out, indent, rng.choice(["- ", "- ", "-   "]), 0)
        text = "\n".join(out) + rng.choice(["\n", "\n", "", "\n\n", "\n# end\n"])
        if self.chance(self.tricky / 3):
            at = rng.randrange(len(text))
            text = text[:at] + rng.choice(["\t", "&a ", "*a", "!!str ", "\x85", " ", "'", '"', ":", "#", "\n", "- "]) + text[at:]
        return text


def test_generated_corpora_are_read_as_libyaml_reads_them_or_refused(tmp_path):
    taken: dict[str, int] = {}
    for seed in range(600):
        path = write(tmp_path, Generator(seed).corpus())
        try:
            how = agree(path)
        except AssertionError as error:
            raise AssertionError(f"seed {seed}: {path.read_text(encoding='utf-8')!r}") from error
        taken[how] = taken.get(how, 0) + 1
    # The generator is worth its time only if each outcome happens often.
    assert min(taken.values()) >= 60, taken


@pytest.mark.parametrize("text", [HEAD + "  - id: a\n    children:\n      - id: b\n",  # read fast
                                  HEAD + "  - id: a\n    children:\n      - {id: b}\n"])  # composed
def test_either_way_a_load_reports_each_stage_once(tmp_path, text):
    path = write(tmp_path, text)
    calls: list[tuple[str, int, int | None]] = []
    load_corpus(path, progress=lambda stage, done, total: calls.append((stage, done, total)))
    size = path.stat().st_size
    assert calls == [
        ("reading", 0, size), ("reading", size, size),
        ("parsing", 0, 1), ("parsing", 1, 1),
        ("building", 0, None), ("building", 2, None),
        ("indexing", 0, 1), ("indexing", 1, 1),
    ]
