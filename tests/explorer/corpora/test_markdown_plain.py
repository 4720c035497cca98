"""The plain path of the Markdown loader: files of headings and paragraphs only are read line by line, and must
read exactly as markdown-it reads them; every other file must be left to markdown-it.

Everything a corpus holds comes from a file's ``_Parsed`` (its preamble, headings and sections), so the two
paths are compared file by file on that, and corpus by corpus on what is loaded (ids, parents, titles,
summaries, contents, metadata, order, lines, hash).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from explorer.corpora import markdown_corpus as md
from explorer.corpora.markdown_corpus import read_markdown

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "markdown"

# Lines a plain file may hold: prose starting with a letter or digit (inline syntax inside is fine: the same
# code reads it on both paths), blank lines, ATX headings at the margin.
PLAIN_LINES = (
    "Plain words in a line.",
    "Two sentences here. And a second one.",
    "No end to this line",
    "Question? Yes! Both end a sentence.",
    "Trailing spaces make a hard break  ",
    "Text with *emphasis*, **strong**, `code` and ~~strike~~. Done.",
    "A [link](https://example.org) and ![an image](i.png) inside. After.",
    "An <b>inline tag</b> and an entity &amp; and &copy; here.",
    "Escapes \\* \\# \\[ stay text. Right.",
    "Ends with a backslash\\",
    "A # inside the line is no heading.",
    "Pipes | in | text make no table",
    "2024 was a year. Numbers start lines too.",
    "1.5 million is not a list item.",
    "10.5) neither is this",
    "Café, naïve, Ünïcode prose. 日本語の文。",
    "日本語で始まる行",
    "Non-breaking\u00a0space and\u2028line separator inside.",
    "Form feed\x0c inside and a vertical tab\x0b too.",
    "x",
    "Title: colon? Then more.",
    "",
    "",
    "",
    "   ",
    "#",
    "# One",
    "## Two ##",
    "### Three #",
    "#### Four#",
    "##### Five ###   ",
    "###### Six",
    "#  Spaced   title  ",
    "# #",
    "## ##",
    "# Usage",
    "## Usage",
    "# Café *emphasis* [link](u) `code`",
    "# " + "long heading words " * 20,
    "# trailing nbsp\u00a0",
)

# Lines that may make markdown-it read a file otherwise than a line scan would: each must send its file there.
TRICKY_LINES = (
    "```",
    "```python",
    "~~~",
    "    indented code",
    " one space in",
    "   three spaces in",
    "- item",
    "-",
    "* item",
    "+ item",
    "1. item",
    "1) item",
    "12. item",
    "3.",
    "> quote",
    ">",
    "<div>",
    "<!-- comment -->",
    "<https://example.org> autolink first",
    "---",
    "***",
    "___",
    "- - -",
    "===",
    "=",
    "Setext",  # harmless alone; with the line below it, a heading
    "|a|b|",
    "--|--",
    ":-:|",
    "[ref]: /url",
    "[link](u) first",
    "####### seven",
    "#hashtag",
    "#\ttab after hashes",
    "\ttab first",
    "a\ttab inside",
    "+++",
    "_underscore_ first",
    "*emphasis* first",
    "`code` first",
    "!bang first",
    "&amp; first",
    "\\escape first",
    "\x0c",
    "\u00a0nbsp first",
    "\ufeffbom",
    "nul\0inside",
    "'quoted' first",
    '"quoted" first',
    "(parenthesis) first",
)
# The one harmless line above: it is tricky only before "===" or "---", which are tricky by themselves.
HARMLESS_TRICKY = {"Setext"}

NEWLINES = ("\n", "\r\n", "\r")


def same_parse(text: str) -> bool:
    """Whether the plain path read the file; asserts it read it as markdown-it does."""
    lines = md.split_lines(text)
    plain = md.parse_plain(text, lines)
    if plain is not None:
        assert plain == md.parse_by_tokens(text, lines), repr(text)
    return plain is not None


def snapshot(corpus):
    documents = [
        (node_id, corpus.index[node_id].content, dict(corpus.index[node_id].metadata)) for node_id in corpus.index.ids()
    ]
    return (corpus.format, corpus.source, corpus.title, corpus.sha256, dict(corpus.lines), corpus.notes, documents)


def both_ways(path: Path):
    """The corpus as loaded, and as loaded with markdown-it reading every file."""
    loaded = read_markdown(path)
    by_tokens = read_markdown(path, by_tokens=True)
    return snapshot(loaded), snapshot(by_tokens)


def random_file(rng: random.Random, tricky: str | None) -> str:
    lines = [rng.choice(PLAIN_LINES) for _ in range(rng.randrange(0, 30))]
    if tricky is not None:
        lines.insert(rng.randrange(len(lines) + 1), tricky)
    newline = rng.choice(NEWLINES)
    return newline.join(lines) + rng.choice(("", newline, newline * 2))


# ---------------------------------------------------------------------------------------------------------------
# File by file


def test_every_markdown_file_in_the_repository_reads_the_same_on_both_paths():
    files = [*FIXTURES.rglob("*.md"), ROOT / "README.md"]
    assert len(files) >= 8
    for path in files:
        same_parse(path.read_text(encoding="utf-8-sig"))


def test_plain_files_take_the_plain_path_and_read_as_markdown_it_reads_them():
    rng = random.Random(12)
    for _ in range(3000):
        text = random_file(rng, None)
        assert same_parse(text), repr(text)


@pytest.mark.parametrize("tricky", TRICKY_LINES)
def test_a_tricky_line_anywhere_sends_the_file_to_markdown_it(tricky):
    rng = random.Random(tricky)
    for _ in range(60):
        text = random_file(rng, tricky)
        taken = same_parse(text)
        assert not taken or tricky in HARMLESS_TRICKY, repr(text)


def test_tricky_pairs_read_the_same():
    """Two tricky lines in a file (a paragraph and its setext underline, a table's rows, a fence and its
    heading-like content...) still give markdown-it's reading, which the plain path must not claim."""
    rng = random.Random(34)
    for _ in range(3000):
        lines = [rng.choice(PLAIN_LINES + TRICKY_LINES) for _ in range(rng.randrange(1, 25))]
        text = rng.choice(NEWLINES).join(lines)
        if same_parse(text):
            assert not any(line in TRICKY_LINES and line not in HARMLESS_TRICKY for line in lines)


@pytest.mark.parametrize(
    "text",
    [
        "Setext\n===\n",
        "Setext\n---\n",
        "Para\n- item\n",
        "Para\n1. item\n",
        "a | b\n--|--\nc | d\n",
        "---\ntitle: x\n---\n# H\n",
        "+++\ntitle = 'x'\n+++\n# H\n",
        "# H\n    # code\n",
        "# H\n\n    # indented code after a blank\n",
        "Para\n    # lazy continuation\n",
        "```\n# in a fence\n```\n",
        "<div>\n# in html\n</div>\n",
        "> # in a quote\n",
        "[x]: /u\n\nText.\n",
        "#\tTab heading\n",
        "Text\0with NUL\n# H\n",
    ],
)
def test_constructs_that_change_headings_or_paragraphs_are_detected(text):
    assert md.parse_plain(text, md.split_lines(text)) is None


@pytest.mark.parametrize(
    ("line", "title"),
    [
        ("#", ""),
        ("# ", ""),
        ("# #", ""),
        ("### ###", ""),
        ("## Two ##", "Two"),
        ("## Two ##   ", "Two"),
        ("## Two#", "Two#"),
        ("## Two \\#", "Two \\#"),
        ("#  spaced  out  ", "spaced  out"),
        ("# trailing nbsp\u00a0", "trailing nbsp"),
        ("###### six ######", "six"),
    ],
)
def test_atx_titles_are_cut_as_markdown_it_cuts_them(line, title):
    assert md.atx_title(line) == title
    assert md.parse_by_tokens(line).headings[0].title == title


# ---------------------------------------------------------------------------------------------------------------
# Whole corpora


def test_the_fixture_corpora_load_the_same_on_both_paths():
    for path in (FIXTURES / "handbook", FIXTURES / "guide.md", FIXTURES / "plain.md", ROOT / "README.md"):
        loaded, by_tokens = both_ways(path)
        assert loaded == by_tokens, path


def test_a_generated_folder_loads_the_same_on_both_paths(tmp_path):
    """Plain and tricky files side by side, with clashing titles and README/index files, in subfolders."""
    rng = random.Random(56)
    root = tmp_path / "docs"
    plain = 0
    for i in range(240):
        folder = root / f"part-{i % 4}" / f"sub-{i % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        tricky = rng.choice(TRICKY_LINES) if i % 3 == 0 else None
        text = random_file(rng, tricky)
        if not text.strip() and tricky is None:
            text = "# Usage\n\nSomething.\n"
        name = ("README.md", "index.md", "Usage.md")[i % 3] if i < 12 else f"{i:03d}-usage.md"
        (folder / name).write_text(text, encoding="utf-8", newline="")
        plain += md.parse_plain(text, md.split_lines(text)) is not None
    assert plain >= 100
    loaded, by_tokens = both_ways(root)
    assert loaded == by_tokens


def test_a_corpus_like_the_benchmarks_takes_the_plain_path(tmp_path):
    texts = []
    for i in range(20):
        parts = [f"# File {i}\n\nHow file {i} reads. It is short.\n"]
        parts += [f"\n{'#' * (2 + k % 4)} Section {i}.{k}: billing\n\nHow billing relates to audit. More.\n" for k in range(30)]
        texts.append("".join(parts))
        (tmp_path / f"f{i:02d}.md").write_text(texts[-1], encoding="utf-8")
    assert all(same_parse(text) for text in texts)
    loaded, by_tokens = both_ways(tmp_path)
    assert loaded == by_tokens
    assert len(loaded[-1]) == 1 + 20 + 20 * 30  # the folder, each file (its heading lent to it), their sections
