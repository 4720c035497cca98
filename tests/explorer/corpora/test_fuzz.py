"""Random, truncated, deeply nested and huge inputs give only our own clear errors, never a traceback."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from explorer.corpora import CorpusError, load_corpus
from explorer.corpora.questions import load_questions
from explorer.corpora.validate import validate
from explorer.navigators.script import load_script

SAMPLES = Path(__file__).resolve().parents[3] / "sample_corpora"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SUFFIXES = [".yaml", ".json", ".md"]


def seeds() -> dict[str, bytes]:
    found = {".yaml": (SAMPLES / "handbook.yaml").read_bytes()}
    json_files = sorted((FIXTURES / "pageindex").glob("*.json"))
    md_files = sorted((FIXTURES / "markdown").rglob("*.md"))
    found[".json"] = json_files[0].read_bytes() if json_files else b'{"structure": [{"node_id": "1", "title": "t"}]}'
    found[".md"] = md_files[0].read_bytes() if md_files else b"# Title\n\nText.\n\n## Sub\n\nMore.\n"
    return found


def only_clear_errors(path: Path) -> None:
    try:
        corpus = load_corpus(path)
    except CorpusError as error:
        message = str(error)
        assert "\n" not in message and message.startswith(str(path)), message
        return
    assert len(corpus.index) >= 1


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_every_truncation_of_a_real_file(tmp_path, suffix):
    data = seeds()[suffix]
    path = tmp_path / f"cut{suffix}"
    step = max(1, len(data) // 150)
    for end in range(0, len(data), step):
        path.write_bytes(data[:end])
        only_clear_errors(path)


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_random_bytes_and_random_mutations(tmp_path, suffix):
    rng = random.Random(f"fuzz{suffix}")
    data = seeds()[suffix]
    path = tmp_path / f"random{suffix}"
    for _ in range(60):
        path.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400))))
        only_clear_errors(path)
    for _ in range(120):
        mutated = bytearray(data)
        for _ in range(rng.randrange(1, 8)):
            position = rng.randrange(len(mutated))
            choice = rng.random()
            if choice < 0.4:
                mutated[position] = rng.randrange(256)
            elif choice < 0.7:
                del mutated[position: position + rng.randrange(1, 40)]
            else:
                mutated[position:position] = rng.choice([b"[", b"{", b"- ", b":", b"&a ", b"*a", b"\x00", b"\t", b"#"])
        path.write_bytes(bytes(mutated))
        only_clear_errors(path)


@pytest.mark.parametrize(("name", "content"), [
    ("deep-flow.yaml", "source: s\nnodes: " + "[" * 20000 + "]" * 20000 + "\n"),
    ("deep-block.yaml", "source: s\nnodes:\n" + "".join("  " * i + "- children:\n" for i in range(1, 3000))),
    ("deep-nodes.yaml", "source: s\nnodes:\n" + "".join(
        "    " * i + f"  - id: n{i}\n" + "    " * i + "    children:\n" for i in range(400))),
    ("deep.json", '{"structure": ' + '[{"node_id": "x", "nodes": ' * 30000 + "[]" + "}]" * 30000 + "}"),
    ("deep.md", "".join("#" * (1 + i % 6) + f" h{i}\n" for i in range(5000))),
    ("aliases.yaml", "source: s\na: &a [x, x, x, x, x, x, x, x, x]\nnodes:\n  - id: a\n"),
    ("laughs.yaml", "source: s\nnodes:\n  - &n0 {id: a}\n" + "".join(
        f"  - &n{i} {{id: b{i}, children: [*n{i - 1}, *n{i - 1}]}}\n" for i in range(1, 30))),
])
def test_nesting_and_aliases(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content)
    only_clear_errors(path)


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_huge_strings(tmp_path, suffix):
    huge = "x" * 5_000_000
    content = {
        ".yaml": f"source: s\nnodes:\n  - id: a\n    title: {huge}\n    content: {huge}\n",
        ".json": f'{{"structure": [{{"node_id": "a", "title": "{huge}", "text": "{huge}"}}]}}',
        ".md": f"# {huge}\n\n{huge}\n",
    }[suffix]
    path = tmp_path / f"huge{suffix}"
    path.write_text(content)
    corpus = load_corpus(path)
    first = next(corpus.index.ids())
    report = validate(path)
    if suffix == ".md":  # a Markdown heading is cut for its title, and validate says so naming the node
        assert len(corpus.title_of(first)) == 300
        assert [w.code for w in report.warnings] == ["cut-title"]
        assert report.warnings[0].node == first
        assert report.warnings[0].message == (
            f"{path}:1: node {first!r} has a heading of 5,000,000 characters, cut to 300 for its title; "
            "shorten the heading"
        )
    else:
        assert len(corpus.title_of(first)) >= 5_000_000
        assert any(w.code == "long-title" for w in report.warnings)


def test_question_sets_and_scripts_only_give_clear_errors(tmp_path):
    rng = random.Random("questions")
    data = (SAMPLES / "handbook.questions.yaml").read_bytes()
    path = tmp_path / "q.yaml"
    for end in range(0, len(data), max(1, len(data) // 80)):
        path.write_bytes(data[:end])
        try:
            load_questions(path)
        except CorpusError as error:
            assert "\n" not in str(error)
    script = (SAMPLES / "scripts" / "hallucinated-branch.yaml").read_bytes()
    for _ in range(80):
        mutated = bytearray(script)
        position = rng.randrange(len(mutated))
        del mutated[position: position + rng.randrange(1, 30)]
        path.write_bytes(bytes(mutated))
        try:
            load_script(path)
        except CorpusError as error:
            assert "\n" not in str(error)
