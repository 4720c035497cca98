"""What every format's load shares: which paths are refused and how, progress, Ctrl+C, and loads that agree."""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path

import pytest

from core import HierarchyMetadata
from explorer.corpora import CorpusError, load_corpus, yaml_corpus
from explorer.corpora.questions import load_questions
from explorer.corpora.validate import validate
from explorer.corpora.yaml_source import compose
from tests.command_line import run_cli
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = SAMPLES
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SUFFIXES = [".yaml", ".json", ".md"]
SMALL = {
    ".yaml": "source: s\nnodes:\n  - id: a\n    title: A\n    summary: About a.\n    children:\n      - id: b\n",
    ".json": '{"structure": [{"node_id": "a", "title": "A", "nodes": [{"node_id": "b", "title": "B"}]}]}',
    ".md": "# A\n\nAbout a.\n\n## B\n\nAbout b.\n",
}
LONG_NAME = "a" * 300


def snapshot(corpus):
    """Everything a load gives, as plain data: ids in order, parents, metadata, content; and the corpus's own."""
    index = corpus.index
    nodes = [
        (node_id, index[node_id].metadata.get(HierarchyMetadata.PARENT_ID), dict(index[node_id].metadata),
         index[node_id].content, index[node_id].id)
        for node_id in index.ids()
    ]
    return (corpus.path, corpus.format, corpus.source, corpus.title, corpus.sha256, dict(corpus.lines),
            corpus.notes, nodes)


# ---------------------------------------------------------------------------------------------------------------
# Paths that are refused with one clear line


@pytest.mark.parametrize("suffix", [*SUFFIXES, ".pdf"])
def test_a_fifo_is_refused_not_read_forever(tmp_path, suffix):
    path = tmp_path / f"pipe{suffix}"
    os.mkfifo(path)
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)  # without the check this blocks for good: nobody writes to the pipe
    assert str(caught.value) == (
        f"{path}: is a FIFO (named pipe), not a file that can be read to its end; "
        "give a .yaml, .json, .md or .pdf file, or a folder"
    )


@pytest.mark.parametrize("suffix", [*SUFFIXES, ".pdf"])
def test_a_symlink_to_a_device_is_refused(tmp_path, suffix):
    path = tmp_path / f"x{suffix}"
    path.symlink_to("/dev/zero")
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)  # without the check this reads zeros until memory runs out
    assert str(caught.value) == (
        f"{path}: is a character device, not a file that can be read to its end; "
        "give a .yaml, .json, .md or .pdf file, or a folder"
    )
    report = validate(path)
    assert [f.message for f in report.errors] == [str(caught.value)]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_path_longer_than_the_file_system_allows_is_one_line(suffix):
    path = Path(LONG_NAME + suffix)
    expected = f"{path}: the path is longer than the file system allows; give a shorter path"
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)
    assert str(caught.value) == expected
    assert [f.message for f in validate(path).errors] == [expected]


def test_a_nul_in_a_path_is_one_line():
    with pytest.raises(CorpusError) as caught:
        load_corpus("bad\0name.yaml")
    assert str(caught.value) == "bad\\x00name.yaml: the path holds a NUL character; give the file's real name"
    assert [f.message for f in validate("bad\0name.yaml").errors] == [str(caught.value)]


def test_check_corpus_path_says_what_the_path_is(tmp_path):
    from explorer.corpora import check_corpus_path

    assert check_corpus_path(tmp_path).st_mode
    with pytest.raises(CorpusError, match="no such file or folder"):
        check_corpus_path(tmp_path / "missing.yaml")


@pytest.mark.parametrize("argument", [LONG_NAME + ".yaml", "missing.yaml", "bad\x7fname\x1b[2J.md"])
def test_the_cli_says_one_line_and_exits_2_for_a_path_it_cannot_use(tmp_path, argument):
    done = run_cli("validate", argument, cwd=tmp_path, columns=None)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    shown = argument.replace("\x7f", "\\x7f").replace("\x1b", "\\x1b")  # controls are named, never written
    assert shown[:20] in lines[0], lines[0]
    assert "\x1b" not in done.stderr


@pytest.mark.parametrize(
    ("corpus", "message"),
    [
        ('"bad\\0name.yaml"', "`corpus:` holds a NUL character; give the corpus's real path"),
        (LONG_NAME + ".yaml", "`corpus:` names a path longer than the file system allows; give a shorter path"),
    ],
)
def test_a_question_sets_corpus_path_that_cannot_be_a_path_names_the_line(tmp_path, corpus, message):
    path = tmp_path / "q.questions.yaml"
    path.write_text(f"questions:\n  - {{id: q, query: x, expect: a}}\ncorpus: {corpus}\n", encoding="utf-8")
    with pytest.raises(CorpusError) as caught:
        load_questions(path)
    assert str(caught.value) == f"{path}:3: {message}"


def test_untrusted_file_names_are_escaped_in_messages(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ok.md").write_text("# Fine\n", encoding="utf-8")
    bad = folder / "\x1b]0;pwned\x07\x1b[2J\u202e\x9b.md"
    bad.write_bytes(b"\xff not utf-8")
    with pytest.raises(CorpusError) as caught:
        load_corpus(folder)
    message = str(caught.value)
    assert message == (
        f"{folder}/\\x1b]0;pwned\\x07\\x1b[2J\\u202e\\x9b.md:1: not UTF-8 text (byte 0); save the file as UTF-8"
    )
    assert not any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 or c == "\u202e" for c in message)
    assert caught.value.path == bad  # the path itself is kept as it is, for callers that open it


# ---------------------------------------------------------------------------------------------------------------
# Progress and Ctrl+C


def write(tmp_path: Path, suffix: str) -> Path:
    path = tmp_path / f"c{suffix}"
    path.write_text(SMALL[suffix], encoding="utf-8")
    return path


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_progress_names_each_stage_from_nothing_to_done(tmp_path, suffix):
    path = write(tmp_path, suffix)
    calls: list[tuple[str, int, int | None]] = []
    load_corpus(path, progress=lambda stage, done, total: calls.append((stage, done, total)))
    size = path.stat().st_size
    assert calls == [
        ("reading", 0, size), ("reading", size, size),
        ("parsing", 0, 1), ("parsing", 1, 1),
        # Markdown knows how many nodes its headings make; the others count as they go.
        *([("building", 0, 2), ("building", 1, 2), ("building", 2, 2)] if suffix == ".md"
          else [("building", 0, None), ("building", 2, None)]),
        ("indexing", 0, 1), ("indexing", 1, 1),
    ]


def test_progress_of_a_folder_counts_folders_then_files(tmp_path):
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    for name in ("README.md", "a.md", "sub/b.md", "sub/c.md"):
        (folder / name).write_text(f"# {name}\n\nText.\n", encoding="utf-8")
    calls: list[tuple[str, int, int | None]] = []
    load_corpus(folder, progress=lambda stage, done, total: calls.append((stage, done, total)))
    assert calls == [
        ("scanning", 0, None), ("scanning", 5, None),  # the folder, its subfolder and three files as nodes
        ("reading", 0, 4), ("reading", 1, 4), ("reading", 2, 4), ("reading", 3, 4), ("reading", 4, 4),
        ("indexing", 0, 1), ("indexing", 1, 1),
    ]


def test_progress_is_called_at_a_modest_rate_on_a_big_corpus(tmp_path):
    path = tmp_path / "big.json"
    nodes = [{"node_id": f"n{i}", "title": f"T{i}"} for i in range(20_000)]
    path.write_text(json.dumps({"structure": nodes}), encoding="utf-8")
    calls: list[tuple[str, int, int | None]] = []
    corpus = load_corpus(path, progress=lambda stage, done, total: calls.append((stage, done, total)))
    building = [done for stage, done, _ in calls if stage == "building"]
    assert building[0] == 0 and building[-1] == 20_000
    assert building == sorted(building)
    assert 3 <= len(building) <= 10  # every 5,000 nodes when the total is not known: not once per node
    assert len(corpus.index) == 20_000


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("stage", ["reading", "parsing", "building", "indexing"])
def test_ctrl_c_during_a_load_propagates_and_leaves_nothing_behind(tmp_path, suffix, stage):
    path = write(tmp_path, suffix)

    def interrupt(current: str, done: int, total: int | None) -> None:
        if current == stage:
            raise KeyboardInterrupt

    assert gc.isenabled()
    with pytest.raises(KeyboardInterrupt):
        load_corpus(path, progress=interrupt)
    assert gc.isenabled()  # the collector paused for the load is running again
    assert snapshot(load_corpus(path)) == snapshot(load_corpus(path))


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_failing_progress_callback_is_not_reported_as_a_bad_corpus(tmp_path, suffix):
    path = write(tmp_path, suffix)

    def broken(stage: str, done: int, total: int | None) -> None:
        if stage == "building":
            raise RuntimeError("the screen is gone")

    with pytest.raises(RuntimeError, match="the screen is gone"):
        load_corpus(path, progress=broken)
    assert gc.isenabled()


def test_the_collector_stays_off_if_it_was_off(tmp_path):
    path = write(tmp_path, ".yaml")
    gc.disable()
    try:
        load_corpus(path)
        assert not gc.isenabled()
    finally:
        gc.enable()


# ---------------------------------------------------------------------------------------------------------------
# A corpus loaded twice gives equal indexes


@pytest.mark.parametrize(
    "path",
    [
        SAMPLES / "handbook.yaml",
        SAMPLES / "contract.yaml",
        FIXTURES / "pageindex" / "manual_structure.json",
        FIXTURES / "markdown" / "guide.md",
        FIXTURES / "markdown" / "handbook",
        ROOT / "README.md",
    ],
    ids=lambda p: p.name,
)
def test_a_corpus_loaded_twice_gives_equal_indexes(path):
    first, second = load_corpus(path), load_corpus(path)
    assert snapshot(first) == snapshot(second)
    assert list(first.index.ids()) == list(second.index.ids())


# ---------------------------------------------------------------------------------------------------------------
# The YAML reader's two paths agree


def both_readings(path: Path):
    """The lean reader's corpus and the full reader's, from one composed document."""
    from explorer.corpora import read_text
    from explorer.corpora.model import sha256_of_bytes
    from explorer.corpora.progress import Progress

    text, data = read_text(path)
    lean = yaml_corpus.read_lean(path, compose(path, text, lazy=True), sha256_of_bytes([data]), Progress(None))
    return lean, yaml_corpus.read_checking(path, compose(path, text, lazy=True), sha256_of_bytes([data]))


@pytest.mark.parametrize("name", ["handbook", "regulation", "specification", "contract"])
def test_the_lean_yaml_reader_reads_every_sample_as_the_full_one_does(name):
    lean, full = both_readings(SAMPLES / f"{name}.yaml")
    assert full.errors == [] and lean is not None and full.corpus is not None
    assert snapshot(lean) == snapshot(full.corpus)


@pytest.mark.parametrize(
    "text",
    [
        # values the lean reader types itself, or leaves to the full reader
        "source: s\ntitle: ~\nnodes:\n  - id: 1.10\n    title: null\n    summary: 'null'\n    content: ''\n"
        "    metadata: {a: 1, b: 1.5, c: yes, d: null, e: '1', f: 2024-01-02, g: !!str 3, h: 0x1F}\n"
        "    children: ~\n",
        "source: s\nnodes:\n  - {id: a, children: [{id: b}, {id: c, children: [{id: d}]}]}\n  - id: e\n",
        "source: s\nnodes:\n  - id: a\n    title: !!null ''\n    summary: !!str ~\n",
        "source: 'null'\nnodes:\n  - id: ~x\n",
    ],
)
def test_the_lean_yaml_reader_agrees_with_the_full_one_on_typed_and_null_values(tmp_path, text):
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8")
    lean, full = both_readings(path)
    assert full.errors == []
    assert lean is not None and snapshot(lean) == snapshot(full.corpus)


@pytest.mark.parametrize(
    "text",
    [
        "source: s\nnodes:\n  - id: a\n  - id: a\n",  # a duplicate id
        "source: s\nnodes:\n  - id: a\n    titel: A\n",  # an unknown key
        "source: s\nnodes:\n  - &n {id: a}\n  - *n\n",  # an alias walked twice
        "source: s\nnodes:\n  - id: a\n    metadata: {hierarchyId: x}\n",  # a reserved key
        "source: ~\nnodes:\n  - id: a\n",  # a null source
        "source: s\nnodes:\n  - id: ''\n",  # a blank id
        "source: s\nnodes:\n  - id: a\n    children: {id: b}\n",  # children not a list
    ],
)
def test_the_lean_yaml_reader_leaves_every_problem_to_the_full_one(tmp_path, text):
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8")
    lean, full = both_readings(path)
    assert lean is None
    assert full.errors
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)
    assert str(caught.value) == str(full.errors[0])


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (LONG_NAME + ".questions.yaml", "the path is longer than the file system allows; give a shorter path"),
        ("bad\0name.questions.yaml", "the path holds a NUL character; give the file's real name"),
        ("missing.questions.yaml", "no such question set; give a .questions.yaml file"),
    ],
)
def test_a_question_set_path_that_cannot_be_read_is_one_line(tmp_path, name, message):
    # The same small-file reader serves navigator scripts (script:PATH).
    path = tmp_path / name
    with pytest.raises(CorpusError) as caught:
        load_questions(path)
    assert caught.value.reason == message


def test_a_question_set_that_is_a_fifo_is_refused(tmp_path):
    path = tmp_path / "q.questions.yaml"
    os.mkfifo(path)
    with pytest.raises(CorpusError, match="is a FIFO"):
        load_questions(path)


def test_make_document_writes_its_keys_after_the_nodes_own_and_replaces_them_in_place():
    from explorer.corpora.model import make_document

    plain = make_document("n1", source="s", parent="p", title="T", summary="S", content="c", metadata={"rank": 3})
    assert list(plain.metadata.items()) == [
        ("rank", 3), ("hierarchyId", "n1"), ("hierarchySource", "s"), ("reasoningTitle", "T"),
        ("reasoningSummary", "S"), ("hierarchyParentId", "p"),
    ]
    given = {"reasoningTitle": "theirs", "rank": 3}
    clash = make_document("n1", source="s", parent=None, title="T", summary="S", content="c", metadata=given)
    assert list(clash.metadata.items()) == [
        ("reasoningTitle", "T"), ("rank", 3), ("hierarchyId", "n1"), ("hierarchySource", "s"),
        ("reasoningSummary", "S"),
    ]
    assert given == {"reasoningTitle": "theirs", "rank": 3}  # read, not changed
