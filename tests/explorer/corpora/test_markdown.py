"""Markdown corpora: headings make the tree in a file, files and subfolders make it in a folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core import HierarchyMetadata
from explorer.corpora import CorpusError, load_corpus, markdown_corpus
from explorer.corpora.markdown_corpus import derive_summary, read_markdown, slugify
from explorer.corpora.model import RESERVED_KEYS, sha256_of_bytes
from explorer.corpora.validate import validate

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "markdown"
LOADERS = pytest.mark.parametrize("load", [load_corpus, read_markdown], ids=["load_corpus", "read_markdown"])


def own_metadata(corpus, node_id):
    """The metadata the Markdown loader adds, without the keys every loader writes."""
    return {k: v for k, v in corpus.index[node_id].metadata.items() if k not in RESERVED_KEYS}


def parents(corpus):
    return [corpus.index[i].metadata.get(HierarchyMetadata.PARENT_ID) for i in corpus.index.ids()]


def write(tmp_path: Path, text: str, name: str = "doc.md") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------------------------
# One file


@LOADERS
def test_headings_make_the_tree_of_a_file(load):
    path = FIXTURES / "guide.md"
    corpus = load(path)
    assert (corpus.format, corpus.source, corpus.title) == ("markdown", "guide", "User Guide")
    assert corpus.path == path
    assert corpus.sha256 == sha256_of_bytes([path.read_bytes()])
    ids = ["guide", "user-guide", "install", "linux", "usage", "user-guide-usage", "appendix", "install-2"]
    assert list(corpus.index.ids()) == ids
    assert corpus.index.root_ids() == ("guide", "user-guide", "appendix", "install-2")
    assert parents(corpus) == [None, None, "user-guide", "install", "user-guide", "user-guide", None, None]
    assert [corpus.index.depth(i) for i in ids] == [0, 0, 1, 2, 1, 1, 0, 0]
    assert [corpus.title_of(i) for i in ids] == [
        "guide", "User Guide", "Install", "Linux", "Usage", "Usage", "Appendix", "Install",
    ]  # fmt: skip
    assert [corpus.summary_of(i) for i in ids] == [  # extractive: the sentences that say most, within the length
        "Welcome to the guide. It has text before the first heading.",
        "The guide explains everything.",
        "Run the installer.",
        "Use apt-get on Linux!",
        "",
        "Setext section text wrapped over two lines.",
        "",
        "A setext level one with the same text as an earlier heading",
    ]
    assert [corpus.index[i].content for i in ids] == [
        "Welcome to the **guide**. It has text before the first heading.",
        "The *guide* explains [everything](https://example.org/guide). More text follows.",
        "Run the installer.\n\n```sh\n# not a heading: a shell comment\npip install thing\n```",
        "Use `apt-get` on Linux! Then relax.",
        "",
        "Setext section text\nwrapped over two lines. A second sentence.",
        "~~~\n## not a heading either\n~~~",
        "A setext level one with the same text as an earlier heading",
    ]
    assert dict(corpus.lines) == {
        "guide": 1,
        "user-guide": 3,
        "install": 7,
        "linux": 16,
        "usage": 20,
        "user-guide-usage": 22,
        "appendix": 28,
        "install-2": 34,
    }
    assert corpus.where("linux") == f"{path}:16"
    assert own_metadata(corpus, "guide") == {"file": "guide.md", "line": 1, "summaryDerived": True}
    assert own_metadata(corpus, "linux") == {"file": "guide.md", "line": 16, "level": 3, "summaryDerived": True}
    assert own_metadata(corpus, "user-guide-usage") == {
        "file": "guide.md",
        "line": 22,
        "level": 2,
        "summaryDerived": True,
    }
    assert corpus.index["install-2"].metadata[HierarchyMetadata.SOURCE] == "guide"


def test_ids_are_the_same_on_every_load():
    first = read_markdown(FIXTURES / "guide.md")
    second = read_markdown(FIXTURES / "guide.md")
    assert list(first.index.ids()) == list(second.index.ids())
    assert first.sha256 == second.sha256


@LOADERS
def test_a_file_without_headings_is_one_node(load):
    corpus = load(FIXTURES / "plain.md")
    assert (corpus.format, corpus.source, corpus.title) == ("markdown", "plain", "plain")
    assert list(corpus.index.ids()) == ["plain"]
    assert corpus.index.depth("plain") == 0
    assert corpus.title_of("plain") == "plain"
    assert corpus.summary_of("plain") == "Just some notes without any heading."
    assert corpus.index["plain"].content == "Just some notes without any heading.\nA second line."
    assert own_metadata(corpus, "plain") == {"file": "plain.md", "line": 2, "summaryDerived": True}
    assert dict(corpus.lines) == {"plain": 2}


def test_clashing_slugs_take_the_parent_then_a_number(tmp_path):
    text = "# Part A\n\n## Notes\n\n## Notes\n\n## Notes\n\n# Part B\n\n## Notes\n\n# Notes\n"
    corpus = read_markdown(write(tmp_path, text))
    assert list(corpus.index.ids()) == [
        "part-a", "notes", "part-a-notes", "part-a-notes-2", "part-b", "part-b-notes", "notes-2",
    ]  # fmt: skip
    assert parents(corpus) == [None, "part-a", "part-a", "part-a", None, "part-b", None]


def test_a_deeper_heading_after_a_shallower_one_finds_the_right_parent(tmp_path):
    text = "# A\n### A deep\n## B\n#### B deep\n# C\n"
    corpus = read_markdown(write(tmp_path, text))
    assert list(corpus.index.ids()) == ["a", "a-deep", "b", "b-deep", "c"]
    assert parents(corpus) == [None, "a", "a", "b", None]
    assert [corpus.index.depth(i) for i in corpus.index.ids()] == [0, 1, 1, 2, 0]


def test_front_matter_and_comments_are_not_headings(tmp_path):
    text = (
        "---\ntitle: Not a heading\n# also: yaml\n---\n"
        "# Real\n\n<!--\n# commented out\n-->\nBody.\n\n"
        "- a list item\n---\n\nClosing `##` words ## \n"
    )
    corpus = read_markdown(write(tmp_path, text))
    assert list(corpus.index.ids()) == ["real"]
    assert corpus.lines == {"real": 5}
    assert (
        corpus.index["real"].content
        == ("<!--\n# commented out\n-->\nBody.\n\n- a list item\n---\n\nClosing `##` words ## ").rstrip()
    )
    assert corpus.summary_of("real") == "Body."


def test_closing_hashes_are_stripped_from_titles_and_empty_headings_get_a_title(tmp_path):
    corpus = read_markdown(write(tmp_path, "## Title ##\n\n#\n\n# C# language\n"))
    assert [corpus.title_of(i) for i in corpus.index.ids()] == ["Title", "(untitled)", "C# language"]
    assert list(corpus.index.ids()) == ["title", "untitled", "c-language"]
    assert corpus.title == "C# language"  # the first level-1 heading with a title


def test_an_empty_file_is_an_error(tmp_path):
    path = write(tmp_path, "\n  \n")
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)
    assert str(caught.value) == f"{path}: the file is empty: no headings and no text; write some Markdown"


def test_non_utf8_file_names_the_file(tmp_path):
    path = tmp_path / "bad.md"
    path.write_bytes(b"# Title\n\nCaf\xe9\n")
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)
    assert str(caught.value) == f"{path}:3: not UTF-8 text (byte 12); save the file as UTF-8"
    assert caught.value.path == path


def test_a_missing_file_is_an_error(tmp_path):
    path = tmp_path / "missing.md"
    with pytest.raises(CorpusError) as caught:
        read_markdown(path)
    assert str(caught.value) == f"{path}: cannot read: No such file or directory"


def test_an_unexpected_failure_is_still_a_corpus_error(monkeypatch):
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(markdown_corpus, "make_document", broken)
    path = FIXTURES / "plain.md"
    with pytest.raises(CorpusError) as caught:
        read_markdown(path)
    assert str(caught.value) == f"{path}: cannot load this Markdown: RuntimeError: boom; please report this file"


# ---------------------------------------------------------------------------------------------------------------
# A folder


@LOADERS
def test_a_folder_makes_files_and_subfolders_nodes_in_name_order(load):
    folder = FIXTURES / "handbook"
    corpus = load(folder)
    assert (corpus.format, corpus.source, corpus.title) == ("markdown", "handbook", "handbook")
    assert dict(corpus.lines) == {}
    ids = [
        "handbook",
        "expenses", "travel", "meals", "receipts",
        "it", "laptops", "holidays",
        "leave", "sick-leave", "leave-holidays",
    ]  # fmt: skip
    assert list(corpus.index.ids()) == ids
    assert corpus.index.root_ids() == ("handbook",)
    assert corpus.index.child_ids("handbook") == ("expenses", "it", "leave")  # drafts/ has no Markdown
    assert parents(corpus) == [
        None,
        "handbook", "expenses", "expenses", "expenses",
        "handbook", "it", "laptops",
        "handbook", "leave", "leave",
    ]  # fmt: skip
    assert [corpus.index.depth(i) for i in ids] == [0, 1, 2, 2, 2, 1, 2, 3, 1, 2, 2]
    assert [corpus.title_of(i) for i in ids] == [
        "Handbook",  # the README's only level-1 heading names the folder's node, as a file's names its node
        "Expenses", "Travel", "Meals", "Receipts",  # two level-1 headings: the file keeps its stem
        "it", "Laptops", "Holidays",  # the only level-1 heading comes first: it names the file's node
        "Leave policy", "Sick leave", "Holidays",
    ]  # fmt: skip
    assert [corpus.summary_of(i) for i in ids] == [
        "The handbook for new staff.",
        "What you can claim back.", "Train, not plane.", "Up to 30 euros a day.", "Keep them for a year.",
        "Help with computers and accounts.", "Every employee gets a laptop.", "Take it home on holidays.",
        "Staff get 25 days of leave a year.", "Tell your manager on the first day.", "Book holidays two weeks ahead.",
    ]  # fmt: skip
    assert [corpus.index[i].content for i in ids] == [
        "The handbook for new staff. It is short.",
        "What you can claim back.", "Train, not plane.", "Up to 30 euros a day.", "Keep them for a year.",
        "Help with computers and accounts.", "Every employee gets a laptop.", "Take it home on holidays.",
        "Staff get 25 days of leave a year.", "Tell your manager on the first day.", "Book holidays two weeks ahead.",
    ]  # fmt: skip
    assert own_metadata(corpus, "handbook") == {
        "folder": ".",
        "file": "README.md",
        "line": 1,
        "summaryDerived": True,
    }
    assert own_metadata(corpus, "it") == {"folder": "it", "file": "it/index.md", "line": 1, "summaryDerived": True}
    assert own_metadata(corpus, "expenses") == {"file": "Expenses.md", "line": 1, "summaryDerived": True}
    assert own_metadata(corpus, "laptops") == {"file": "it/laptops.md", "line": 1, "summaryDerived": True}
    assert own_metadata(corpus, "travel") == {"file": "Expenses.md", "line": 3, "level": 2, "summaryDerived": True}
    assert own_metadata(corpus, "holidays") == {
        "file": "it/laptops.md",
        "line": 5,
        "level": 2,
        "summaryDerived": True,
    }
    assert own_metadata(corpus, "leave-holidays") == {
        "file": "leave.md",
        "line": 9,
        "level": 2,
        "summaryDerived": True,
    }
    assert "hidden" not in corpus.index  # .hidden.md is ignored


def test_folder_hash_covers_each_files_path_and_bytes_in_order():
    folder = FIXTURES / "handbook"
    names = ["Expenses.md", "README.md", "it/index.md", "it/laptops.md", "leave.md"]
    chunks: list[bytes] = []
    for name in names:
        data = (folder / name).read_bytes()
        chunks += [f"{name}\0{len(data)}\0".encode(), data]
    assert read_markdown(folder).sha256 == sha256_of_bytes(chunks)


def test_a_lent_heading_follows_the_text_before_it(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    write(folder, "Draft notice.\n\n# Setup\n\nInstall it first.\n\n## Linux\n\nUse apt.\n", "setup.md")
    corpus = read_markdown(folder)
    assert list(corpus.index.ids()) == ["docs", "setup", "linux"]
    assert corpus.title_of("setup") == "Setup"
    assert corpus.index["setup"].content == "Draft notice.\n\nInstall it first."
    assert corpus.summary_of("setup") == "Draft notice."
    assert own_metadata(corpus, "setup") == {"file": "setup.md", "line": 3, "summaryDerived": True}
    assert corpus.index["docs"].content == ""
    assert own_metadata(corpus, "docs") == {"folder": ".", "summaryDerived": True}


def test_a_folder_without_markdown_is_an_error(tmp_path):
    folder = tmp_path / "empty"
    (folder / "sub").mkdir(parents=True)
    (folder / "notes.txt").write_text("text", encoding="utf-8")
    (folder / ".hidden.md").write_text("# Hidden", encoding="utf-8")
    with pytest.raises(CorpusError) as caught:
        load_corpus(folder)
    assert str(caught.value) == (
        f"{folder}: no Markdown files (.md) in this folder or its subfolders; give a folder with .md files, or one file"
    )


def test_non_utf8_file_in_a_folder_names_that_file(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    write(folder, "# Good\n", "a.md")
    bad = folder / "b.md"
    bad.write_bytes(b"\xff\xfe")
    with pytest.raises(CorpusError) as caught:
        load_corpus(folder)
    assert str(caught.value) == f"{bad}:1: not UTF-8 text (byte 0); save the file as UTF-8"


def test_a_symlink_loop_is_read_once(tmp_path):
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    write(folder / "sub", "# Page\n", "page.md")
    (folder / "sub" / "again").symlink_to(folder, target_is_directory=True)
    corpus = read_markdown(folder)
    assert list(corpus.index.ids()) == ["docs", "sub", "page"]


# ---------------------------------------------------------------------------------------------------------------
# Summaries and slugs


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        ("First sentence. Second one.", "First sentence."),
        ("Is it? Yes.", "Is it?"),
        ("Version 1.2 is out. Upgrade.", "Version 1.2 is out."),
        ("No full stop here\nbut a second line", "No full stop here"),
        ("A sentence that\nwraps over lines. Then more.", "A sentence that wraps over lines."),
        ("**Bold** and _italic_ and ~~gone~~ text.", "Bold and italic and gone text."),
        ("See [the docs](http://x) and ![logo](l.png).", "See the docs and logo."),
        ("Call `__init__` first.", "Call __init__ first."),
        ("- first item\n- second item", "first item"),
        ("> quoted words. More.", "quoted words. More."),
        ("```\ncode. here\n```\n\nAfter code.", "After code."),
        ("# Heading\n\nBody text.", "Body text."),
        ("Title\n=====\n\nBody text.", "Body text."),
        ("", ""),
        ("```\nonly code\n```", ""),
    ],
)
def test_derived_summary_is_the_first_sentence(text, summary):
    assert derive_summary(text) == summary


def test_derived_summary_is_cut_to_300_characters():
    summary = derive_summary(" ".join(["word"] * 200) + ".")
    assert len(summary) <= 300
    assert summary.endswith("word…")


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Getting Started", "getting-started"),
        ("  C++ & Rust: a_b  ", "c-rust-a-b"),
        ("Café Ünïcode", "cafe-unicode"),
        ("[Install](http://x) `pip`", "install-pip"),
        ("!!!", "section"),
    ],
)
def test_slugs_are_lowercase_words_joined_by_hyphens(text, slug):
    assert slugify(text) == slug


# ---------------------------------------------------------------------------------------------------------------
# A folder's own README, symlinks, and what is not a file


def test_a_folders_readme_keeps_its_sections_as_nodes(tmp_path):
    readme = (
        "# Project\n\nWhat the project is. More.\n\n## Install\n\nRun the installer.\n\n"
        "### Linux\n\nUse apt.\n\n## Usage\n\nCall it.\n"
    )
    alone = read_markdown(write(tmp_path, readme, "README.md"))
    assert list(alone.index.ids()) == ["project", "install", "linux", "usage"]
    folder = tmp_path / "docs"
    folder.mkdir()
    write(folder, readme, "README.md")
    write(folder, "# Other\n\nAnother page.\n", "other.md")
    corpus = read_markdown(folder)
    # The README's sole level-1 heading names the folder's node and lends it its text; its other sections stay
    # nodes under it, before the folder's files.
    assert list(corpus.index.ids()) == ["docs", "install", "linux", "usage", "other"]
    assert parents(corpus) == [None, "docs", "install", "docs", "docs"]
    assert corpus.title_of("docs") == "Project"
    assert corpus.index["docs"].content == "What the project is. More."
    assert corpus.summary_of("docs") == "What the project is."
    assert corpus.index["linux"].content == "Use apt."
    assert own_metadata(corpus, "docs") == {"folder": ".", "file": "README.md", "line": 1, "summaryDerived": True}
    assert own_metadata(corpus, "linux") == {"file": "README.md", "line": 9, "level": 3, "summaryDerived": True}
    assert (corpus.title, corpus.source) == ("docs", "docs")


def test_the_projects_readme_keeps_every_section_in_a_folder(tmp_path):
    readme = Path(__file__).resolve().parents[3] / "README.md"
    alone = read_markdown(readme)
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "README.md").write_bytes(readme.read_bytes())
    write(folder, "# Notes\n\nA page.\n", "notes.md")
    corpus = read_markdown(folder)
    # Alone, its first heading is a root; in a folder that heading names the folder's node, and one more file.
    assert len(corpus.index) == len(alone.index) + 1
    assert [corpus.title_of(i) for i in corpus.index.ids()][1:-1] == [alone.title_of(i) for i in alone.index.ids()][1:]


def test_a_symlink_out_of_the_folder_is_not_followed_unless_asked(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    write(outside, "# Secret\n\nPrivate text.\n", "secret.md")
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    write(folder, "# Page\n\nText.\n", "page.md")
    (folder / "etc").symlink_to(outside, target_is_directory=True)
    (folder / "leak.md").symlink_to(outside / "secret.md")
    (folder / "sub" / "alias.md").symlink_to(folder / "page.md")  # inside the folder: followed
    corpus = load_corpus(folder)
    assert list(corpus.index.ids()) == ["docs", "page", "sub", "alias"]
    assert all("Private" not in corpus.index[i].content for i in corpus.index.ids())
    assert corpus.notes == (
        f"etc is a symlink out of the folder (to {outside}); left out",
        f"leak.md is a symlink out of the folder (to {outside / 'secret.md'}); left out",
    )
    warnings = [(w.code, w.message) for w in validate(folder).warnings if w.code == "left-out"]
    assert warnings == [("left-out", f"{folder}: {note}") for note in corpus.notes]
    followed = load_corpus(folder, follow_outside_links=True)
    assert list(followed.index.ids()) == ["docs", "etc", "secret", "leak", "page", "sub", "alias"]
    assert followed.notes == ()


def test_a_fifo_or_device_in_a_folder_is_passed_over(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    write(folder, "# Page\n\nText.\n", "page.md")
    os.mkfifo(folder / "pipe.md")
    (folder / "zero.md").symlink_to("/dev/zero")
    corpus = load_corpus(folder)  # reading either would never end
    assert list(corpus.index.ids()) == ["docs", "page"]


# ---------------------------------------------------------------------------------------------------------------
# Hostile headings: linear loading, cut titles


LINEAR_CHECK = """
import sys
from explorer.corpora import load_corpus
corpus = load_corpus(sys.argv[1])
print(len(corpus.index), len(corpus.title_of(next(corpus.index.ids()))))
"""


@pytest.mark.parametrize(
    "text",
    ["# " + " _a" * 100_000, "# a" + " " * 300_000 + "b", "a" + " _a" * 100_000, "Title\n" + "=" * 300_000,
     "# " + "[" * 100_000 + "\n\n" + "*a" * 100_000],
    ids=["emphasis-run", "space-run", "paragraph-emphasis-run", "setext-run", "brackets"],
)
@pytest.mark.process
def test_hostile_headings_load_in_time_linear_in_their_size(tmp_path, text):
    # 300 KB of these took the old line scanner's regular expressions hours (18-25 s at 30 KB, 66 s at 60 KB,
    # growing with the square); a linear load takes about a second. The timeout is a watchdog against a hang,
    # not a measure of speed: it is a hundred times what a linear load needs on a busy machine.
    path = write(tmp_path, text)
    done = subprocess.run([sys.executable, "-c", LINEAR_CHECK, str(path)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    count, title_length = map(int, done.stdout.split())
    assert count == 1
    assert title_length <= markdown_corpus.MAX_TITLE


def test_a_long_heading_is_cut_for_its_title_and_validate_names_the_node(tmp_path):
    path = write(tmp_path, "# Intro\n\nText.\n\n## " + "word " * 200 + "\n\nBody.\n")
    corpus = read_markdown(path)
    ids = list(corpus.index.ids())
    long_id = ids[1]
    title = corpus.title_of(long_id)
    assert len(title) <= 300 and title.endswith("word…")
    assert own_metadata(corpus, long_id)["headingLength"] == 999
    report = validate(path)
    assert [(w.code, w.node, w.message) for w in report.warnings] == [
        ("cut-title", long_id, f"{path}:5: node {long_id!r} has a heading of 999 characters, cut to {len(title)} "
                               "for its title; shorten the heading"),
    ]
    assert corpus.index[long_id].content == "Body."


def test_toml_front_matter_is_skipped_too(tmp_path):
    corpus = read_markdown(write(tmp_path, "+++\ntitle = 'x'\n# not = 'a heading'\n+++\n\nIntro.\n\n# Real\n"))
    assert list(corpus.index.ids()) == ["doc", "real"]
    assert corpus.index["doc"].content == "Intro."
    assert corpus.lines == {"doc": 6, "real": 8}


def test_headings_inside_quotes_lists_and_html_are_not_sections(tmp_path):
    text = "# Top\n\n> # quoted\n\n- # listed\n\n<div>\n# in html\n</div>\n\n    # indented code\n\n## Next\n"
    corpus = read_markdown(write(tmp_path, text))
    assert list(corpus.index.ids()) == ["top", "next"]
    assert corpus.summary_of("top") == "quoted"


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        ("| Name | Value |\n|---|---|\n| a | b |", "Name | Value"),
        ("- [ ] a task to do\n- [x] done", "a task to do"),
        ("Fish &amp; chips. Later.", "Fish & chips."),
        ("<!-- a comment -->\n\nAfter the comment.", "After the comment."),
        ("---\n\nAfter a break.", "After a break."),
        ("Text with <b>tags</b> and a <https://example.org> link.", "Text with tags and a https://example.org link."),
        ("    indented code. here\n\nProse.", "Prose."),
    ],
)
def test_more_derived_summaries(text, summary):
    assert derive_summary(text) == summary


def test_a_short_ascii_slug_is_what_the_general_rule_gives():
    import random
    import re
    import string

    def reference(text: str) -> str:
        return re.sub(r"[\W_]+", "-", text.lower()).strip("-") or "section"

    rng = random.Random(3)
    texts = ["".join(rng.choice(string.printable) for _ in range(rng.randrange(0, 60))) for _ in range(500)]
    texts += [string.printable, string.punctuation, "a_b", "__x__", "9-9", "A\tB\nC"]
    for text in texts:
        bare = markdown_corpus.plain_text(text)
        assert slugify(text) == reference(bare), text
