"""``reasoning-explorer import``: a PDF becomes a corpus file, and a PageIndex tree gets its pages' text.

    reasoning-explorer import FILE.pdf [-o CORPUS.json] [--force]
    reasoning-explorer import TREE.json --pdf FILE.pdf [-o CORPUS.json] [--force]

The corpus written is a PageIndex tree JSON (``{"doc_name", "structure": [...]}``, each node with ``node_id``,
``title``, ``start_index``/``end_index``, ``summary``, ``text`` and ``nodes``): the format a PDF's tree already has
here, which loads fastest and keeps the page ranges. Without ``-o`` it is ``FILE.json`` beside the PDF (a tree:
``TREE.text.json``). An existing file is replaced only with ``--force``, and never the PDF or the tree read.
A bad PDF (encrypted, damaged, scanned, no pages, not a PDF) is one line and exit 2.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ..atomic_file import write_atomically
from ..corpora import CorpusError, Progress
from ..outputs import Output, Read, refused
from ..safe_text import one_line
from .inputs import LoadProgress
from .options import EXIT_OK, PROG, Parser, fail, is_there, path_text


def cmd_import(argv: Sequence[str]) -> int:
    parser = Parser(prog=f"{PROG} import",
                    description="Build a corpus (a PageIndex tree JSON with each node's text and summary) from a "
                                "PDF, or give a PageIndex tree its pages' text from its PDF (--pdf).")
    parser.add_argument("source", metavar="FILE", type=path_text, help="a PDF, or a PageIndex tree JSON with --pdf")
    parser.add_argument("--pdf", type=path_text, metavar="FILE.pdf",
                        help="the PDF a PageIndex tree was made from: each node gets the text of its pages")
    parser.add_argument("-o", "--output", type=path_text, metavar="CORPUS.json",
                        help="the corpus to write (default: FILE.json beside a PDF, TREE.text.json for a tree)")
    parser.add_argument("--force", action="store_true", help="replace the output file when it exists")
    args = parser.parse_args(argv)
    source = Path(args.source)
    pdf = Path(args.pdf) if args.pdf else source
    if args.pdf is None and source.suffix.lower() == ".json":
        fail(f"{source}: a PageIndex tree gets its text from its PDF; add --pdf FILE.pdf")
    default = source.with_suffix(".json") if args.pdf is None else source.with_name(f"{source.stem}.text.json")
    output = Path(args.output).expanduser() if args.output else default
    reads = [Read.of("the PDF", pdf), Read.of("the PageIndex tree", source if args.pdf else None)]
    problem = refused(Output("the corpus", output), reads, doing="write the corpus", example="corpus.json")
    if problem is not None:
        fail(problem)
    if is_there(output) and not args.force:
        fail(f"{output} exists; add --force to replace it, or give another file with -o")
    from ..corpora.pdf_corpus import fill_pageindex, pdf_tree, read_tree
    from ..corpora.pdf_pages import read_pdf_text

    reporter = LoadProgress(pdf) if sys.stderr.isatty() else None
    tree: object
    try:
        text = read_pdf_text(pdf, Progress(reporter))
        if args.pdf is None:
            tree = pdf_tree(text, pdf, Progress(reporter))
            how = "its outline" if text.outline else "its layout"
        else:
            tree = read_tree(source)
            filled = fill_pageindex(tree, text, source)
            how = f"the text of {filled:,} nodes"
    except CorpusError as exc:
        fail(str(exc))
    finally:
        if reporter is not None:
            reporter.clear()
    nodes = _count(tree)
    try:
        write_atomically(output, json.dumps(tree, ensure_ascii=False, indent=1) + "\n")
    except OSError as exc:
        fail(f"cannot write the corpus to {output}: {exc.strerror or exc}")
    print(f"wrote {one_line(str(output))}: {nodes:,} nodes from {len(text.pages):,} pages ({how}); "
          f"walk it: {PROG} walk {one_line(str(output))} \"your question\"")
    return EXIT_OK


def _count(tree: object) -> int:
    roots = tree.get("structure") if isinstance(tree, dict) else tree
    stack, count = list(roots) if isinstance(roots, list) else [], 0
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            count += 1
            stack.extend(node.get("nodes") or [])
    return count
