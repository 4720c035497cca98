"""``reasoning-explorer import``: a PDF becomes a corpus file, and a PageIndex tree gets its pages' text.

    reasoning-explorer import FILE.pdf [-o CORPUS.json] [--overwrite] [--summaries MODEL]
    reasoning-explorer import TREE.json --pdf FILE.pdf [-o CORPUS.json] [--overwrite]

The corpus written is a PageIndex tree JSON (``{"doc_name", "structure": [...]}``, each node with ``node_id``,
``title``, ``start_index``/``end_index``, ``summary``, ``text`` and ``nodes``): the format a PDF's tree already has
here, which loads fastest and keeps the page ranges. Without ``-o`` it is ``FILE.json`` beside the PDF (a tree:
``TREE.text.json``). An existing file is replaced only with ``--overwrite`` (``--force`` says the same here), and
never the PDF or the tree read: the corpus is written through the one gate (:mod:`explorer.outputs`). ``-o`` names
a ``.json`` file: a PageIndex tree under another suffix would not open as a corpus.
A bad PDF (encrypted, damaged, scanned, no pages, not a PDF) is one line and exit 2.

``--summaries openai:MODEL`` (or ``ollama:``, ``vllm:``, ``local:``): each node's summary written by that model
instead of the extractive one (:mod:`explorer.navigators.summary_writer`), its requests kept in the response cache
(``--cache DIR``, ``--no-cache``), and said: how many requests, how many cached and new, and a line for each node
whose request failed (it keeps its extractive summary).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..corpora import CorpusError, Progress
from ..outputs import Ledger, Output, Read, Refused, judge, write
from ..safe_text import one_line
from .inputs import LoadProgress
from .options import EXIT_OK, PROG, Parser, add_cache_options, add_summaries_option, fail, path_text, summaries_from

if TYPE_CHECKING:
    from ..navigators.summary_writer import SummaryTally


def cmd_import(argv: Sequence[str]) -> int:
    parser = Parser(prog=f"{PROG} import",
                    description="Build a corpus (a PageIndex tree JSON with each node's text and summary) from a "
                                "PDF, or give a PageIndex tree its pages' text from its PDF (--pdf).")
    parser.add_argument("source", metavar="FILE", type=path_text, help="a PDF, or a PageIndex tree JSON with --pdf")
    parser.add_argument("--pdf", type=path_text, metavar="FILE.pdf",
                        help="the PDF a PageIndex tree was made from: each node gets the text of its pages")
    parser.add_argument("-o", "--output", type=path_text, metavar="CORPUS.json",
                        help="the corpus to write (default: FILE.json beside a PDF, TREE.text.json for a tree)")
    parser.add_argument("--overwrite", "--force", dest="overwrite", action="store_true",
                        help="replace the output file when it exists (never the PDF or the tree read)")
    add_summaries_option(parser)
    add_cache_options(parser)
    args = parser.parse_args(argv)
    source = Path(args.source)
    pdf = Path(args.pdf) if args.pdf else source
    if args.pdf is None and source.suffix.lower() == ".json":
        fail(f"{source}: a PageIndex tree gets its text from its PDF; add --pdf FILE.pdf")
    if args.pdf is not None and args.summaries is not None:
        fail("--summaries writes the summaries of a PDF's own tree; a PageIndex tree keeps its own (leave "
             "--summaries out, or import the PDF itself)")
    writer = summaries_from(args)
    default = source.with_suffix(".json") if args.pdf is None else source.with_name(f"{source.stem}.text.json")
    output = Path(args.output).expanduser() if args.output else default
    ledger = Ledger(Read.of("the PDF", pdf), Read.of("the PageIndex tree", source if args.pdf else None))
    corpus_out = Output("the corpus", output)
    verdict = judge(corpus_out, ledger, doing="write the corpus", example="corpus.json", replace=args.overwrite)
    if verdict is not None and not verdict.exists:  # before the PDF is read: a long import must not end in a refusal
        fail(verdict.line)
    if output.suffix.lower() != ".json":  # the tree written opens by its suffix: out.yaml would be read as YAML
        fail(f"{output}: the corpus written is a PageIndex tree JSON, which opens only as a .json file; give -o a "
             "name ending in .json")
    if verdict is not None:
        fail(f"{output} exists; add --overwrite to replace it, or give another file with -o")
    from ..corpora.pageindex import build_pageindex
    from ..corpora.pdf_corpus import fill_pageindex, pdf_tree, read_tree
    from ..corpora.pdf_pages import read_pdf_text

    reporter = LoadProgress(pdf) if sys.stderr.isatty() else None
    tree: object
    tally: SummaryTally | None = None
    try:
        text = read_pdf_text(pdf, Progress(reporter))
        if args.pdf is None:
            tree = pdf_tree(text, pdf, Progress(reporter))
            how = "its outline" if text.outline else "its layout"
            tally = writer.write(tree, Progress(reporter)) if writer is not None else None
        else:
            tree = read_tree(source)
            filled = fill_pageindex(tree, text, source)
            build_pageindex(tree, source)  # a tree that would not open as a corpus is refused, not written
            how = f"the text of {filled:,} nodes"
    except CorpusError as exc:
        fail(str(exc))
    finally:
        if reporter is not None:
            reporter.clear()
        if writer is not None:  # the summaries are written: its navigator's client is done
            writer.close()
    if tally is not None:
        print(tally.line())
        for line in tally.failures():
            print(f"{PROG}: warning: {one_line(line)}", file=sys.stderr)
    nodes = _count(tree)
    try:
        write(corpus_out, json.dumps(tree, ensure_ascii=False, indent=1) + "\n", ledger, doing="write the corpus",
              example="corpus.json", replace=args.overwrite)
    except Refused as exc:  # the file appeared while the PDF was read
        fail(exc.line)
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
