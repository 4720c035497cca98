"""``reasoning-explorer audit``: the nodes whose title and summary describe their own subtree worst, weakest first."""

from __future__ import annotations

from collections.abc import Sequence

from ..safe_text import visible
from .inputs import corpus_at
from .options import EXIT_OK, PROG, Parser, console, fail, path_text, write_json

LIMIT = 10


def _limit(text: str) -> int:
    from argparse import ArgumentTypeError

    try:
        value = int(text)
    except ValueError:
        raise ArgumentTypeError(f"{text!r} is not a whole number of nodes") from None
    if value < 0:
        raise ArgumentTypeError(f"{value} nodes: give 0 (every node) or more")
    return value


def cmd_audit(argv: Sequence[str]) -> int:
    parser = Parser(prog=f"{PROG} audit",
                    description="Rank the nodes whose title and summary describe what lies beneath them worst "
                                "(against their siblings, their children and the rest of the corpus), weakest "
                                "first, each with a line that says why. No question needed.")
    parser.add_argument("corpus", metavar="CORPUS", type=path_text, help="a corpus (.yaml, .json, .md or a folder)")
    parser.add_argument("--limit", type=_limit, default=LIMIT, metavar="N",
                        help=f"the N weakest nodes (default {LIMIT}; 0: every node)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    args = parser.parse_args(argv)
    from ..navigators import NavigatorConfigError
    from ..navigators.judge import DEFAULT_JUDGE, EmbeddingJudge, judge_for
    from ..walks.audit import audit, basis

    corpus = corpus_at(args.corpus)
    try:
        judge = judge_for(DEFAULT_JUDGE, corpus)
    except NavigatorConfigError as exc:
        fail(str(exc))
    assert isinstance(judge, EmbeddingJudge)
    fits = audit(judge, args.limit or None)
    content, summaries, compared = basis(judge)
    if args.json:
        write_json({"corpus": str(corpus.path), "judge": judge.name, "nodes": len(corpus.index),
                    "with_content": content, "with_summary": summaries, "compared": compared,
                    "weakest": [fit.to_json() for fit in fits]})
        return EXIT_OK
    from rich.table import Table

    from ..safe_text import safe

    table = Table(title=f"The map's weakest nodes ({judge.name})", title_justify="left")
    for column, justify in (("node", "left"), ("fit", "right"), ("why", "left")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for fit in fits:
        table.add_row(safe(fit.id, "bold", width=40), f"{fit.fit:.3f}", safe(fit.says, width=300))
    out = console()
    out.print(table)
    out.print(visible(f"{len(fits):,} of {len(corpus.index):,} nodes; fit: the node's worst place on any measure, "
                      f"as a share of the corpus (0: the worst)"), markup=False, highlight=False)
    out.print(visible(f"Compared: {compared}."), markup=False, highlight=False)
    return EXIT_OK
