"""``reasoning-explorer replay``: a trace's recorded decisions run again, for free, with another budget; with
``--navigator MODEL``, MODEL answers live what the trace never judged (or, with ``--from N``, every decision after
the trace's first N)."""

from __future__ import annotations

from collections.abc import Sequence

from core import NavigatorChose, NavigatorFailed, TreeNavigator

from ..navigators.forcing import Force, ForcingNavigator, RecordOnly
from ..trace import Trace
from ..walks.decisions import decisions_of
from ..walks.session import Wiring
from .inputs import looks_like_spans, walk_and_corpus
from .options import (
    PROG,
    Parser,
    add_force_option,
    add_llm_options,
    add_walk_options,
    fail,
    folders_from,
    forces_from,
    llm_model,
    navigator_for,
    path_text,
    policy_settings,
    report_local_model_loading,
    whole_number,
)
from .walk import run_walk

__all__ = ["cmd_replay", "recorded_answers"]


def recorded_answers(trace: Trace, first: int | None = None) -> tuple[
        dict[str | None, NavigatorChose | NavigatorFailed], list[Force]]:
    """The trace's answers by the node judged (its first ``first`` decisions only, when given), and the decisions a
    person forced among them, as forces (so that they stay forced, and marked, in the new walk)."""
    recorded: dict[str | None, NavigatorChose | NavigatorFailed] = {}
    forces: list[Force] = []
    answered = [d for d in decisions_of(trace.events, trace.forced) if d.answer is not None]
    for decision in answered if first is None else answered[:first]:
        event = decision.answer
        assert event is not None
        if decision.forced and isinstance(event, NavigatorChose):
            forces.append(Force(event.current, event.selected))
        else:
            recorded.setdefault(event.current, event)
    return recorded, forces


def cmd_replay(argv: Sequence[str]) -> int:
    parser = Parser(prog=f"{PROG} replay",
                    description="Re-run a trace's recorded decisions headless, with another budget or depth limit.")
    parser.add_argument("trace", metavar="TRACE", type=path_text,
                        help="a trace saved by `walk --trace` or the explorer, or an OTLP JSON file of walk spans "
                             "(FILE#N: its Nth walk)")
    parser.add_argument("--corpus", metavar="C", type=path_text, help="the corpus, when it is not where the trace says")
    add_walk_options(parser, navigator=False)
    parser.add_argument("--navigator", "-n", metavar="MODEL",
                        help="answer live, with this navigator, the decisions the trace never judged (reachable with "
                             "a bigger budget or depth limit) instead of stopping there")
    parser.add_argument("--from", dest="first", type=whole_number(0, 1_000_000), metavar="N",
                        help="with --navigator: take the trace's answers for its first N decisions only, and ask the "
                             "navigator for every later one")
    add_force_option(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    add_llm_options(parser)
    args = parser.parse_args(argv)
    if args.navigator is None:
        if args.first is not None:
            fail("--from N hands the decisions after the trace's first N to a navigator: it needs --navigator MODEL")
        llm_model(args, "replay:")  # LLM options with no navigator to apply them to: one line
    trace, corpus = walk_and_corpus(args.trace, args.corpus)
    navigator: TreeNavigator
    if args.navigator is None and not looks_like_spans(trace.path):
        model = f"replay:{trace.path}"  # the file (t.jsonl#1 names its one walk)
        navigator = navigator_for(model)  # no LLM: no folders to wire
    elif args.navigator is None:  # a walk rebuilt from spans: its answers replayed here, no file to name
        model = f"replay:{args.trace}"
        recorded, traced_forces = recorded_answers(trace)
        navigator = ForcingNavigator(RecordOnly("the recording"), traced_forces, recorded)
    else:
        model = llm_model(args, args.navigator)
        wiring = Wiring(hearing=report_local_model_loading(), folders=folders_from(args))
        recorded, traced_forces = recorded_answers(trace, args.first)
        navigator = ForcingNavigator(navigator_for(model, wiring=wiring), traced_forces, recorded)
    traced = trace.header.settings
    settings = traced.but(
        model=model,
        max_nodes_visited=args.max_visits if args.max_visits is not None else traced.max_nodes_visited,
        max_depth=args.max_depth if args.max_depth is not None else traced.max_depth,
        **policy_settings(args, traced),
    )
    return run_walk(corpus, settings, navigator, args.json, None, forces_from(args.force, corpus), args.transcripts)
