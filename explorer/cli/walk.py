"""``reasoning-explorer walk``: one walk headless, printed (or ``--runs N``: how stable it is)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from core import TreeNavigator

from ..corpora import Corpus
from ..ending import WalkEnd
from ..navigators.forcing import Force
from ..safe_text import visible
from ..trace import FinishedWalk, write_trace
from ..walk_settings import WalkSettings
from ..walks.run_to import Paused, Until, UntilError, first_hold, parse_until
from ..walks.session import UNWIRED, SessionEnded, SessionEvent, Sink, WalkSession, Wiring
from ..walks.settings import short_model
from .inputs import corpus_at
from .options import (
    EXIT_FOUND,
    EXIT_OK,
    PROG,
    Parser,
    add_force_option,
    add_llm_options,
    add_map_option,
    add_overwrite_option,
    add_pdf_option,
    add_telemetry_options,
    add_walk_options,
    budget_list,
    check_apart,
    check_writable,
    console,
    fail,
    folders_from,
    forces_from,
    llm_model,
    navigator_for,
    path_text,
    pdf_summaries,
    query_text,
    read_by,
    report_local_model_loading,
    settings_from,
    telemetry_from,
    whole_number,
    write_json,
)


class TraceFile:
    """``--trace FILE``, a sink of the walk's end: its one record written there as it ends; what went wrong is kept
    (``error``), for the command to say once the walk is over (a sink never raises)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.error: OSError | None = None

    def __call__(self, finished: FinishedWalk) -> None:
        try:
            write_trace(Path(self.path), finished)
        except OSError as exc:
            self.error = exc


def run_walk(corpus: Corpus, settings: WalkSettings, navigator: TreeNavigator, as_json: bool,
             trace: str | None, forces: Sequence[Force] = (), transcripts: bool = False,
             wiring: Wiring = UNWIRED, until: Until | None = None) -> int:
    """One walk, printed; its end goes to ``trace`` (``--trace``) and to the ``wiring``'s observers (the
    telemetry's). With ``until``, the walk stops at the first step where the condition holds: the token is tripped
    there, so a live navigator is asked nothing after it, and the report says ``paused`` (exit 0)."""
    traced = TraceFile(trace) if trace else None
    session = WalkSession(corpus, settings, navigator, forces=forces,
                          hook=wiring.hook(*([Sink(traced)] if traced is not None else [])))
    held: list[Paused] = []

    def record(message: SessionEvent | SessionEnded) -> None:
        session.record(message)
        if until is not None and not held and isinstance(message, SessionEvent):
            pause = first_hold(until, session.events, message.seq - 1, session.history.forced)
            if pause is not None:
                held.append(pause)
                session.cancel()

    try:
        session.run_to_end()
        session.run(record)
    except KeyboardInterrupt:
        session.cancel()
        raise
    events = session.events
    end, error = session.history.end or WalkEnd.FINISHED, session.history.error
    if traced is not None and traced.error is not None:
        exc = traced.error
        fail(f"cannot save the trace to {trace}: {exc.strerror or exc}")
    forced = session.history.forced
    pause = held[0] if held else None
    if as_json:
        document = session.to_json()
        if until is not None:
            document["paused"] = pause.to_json() if pause is not None else None
        write_json(document)
    else:
        from .render import walk_report

        console().print(walk_report(events, corpus, end, error, forced=forced, transcripts=transcripts,
                                    paused=pause.why if pause is not None else None))
        for force in session.not_applied():
            where = "the first offer" if force.node is None else f"{force.node!r}"
            console().print(visible(f"--force {force.spelled()} never applied: the walk never judged {where}"),
                            markup=False, highlight=False)
        if until is not None:
            said = (f"paused: {pause.why}" if pause is not None
                    else f"--until {until.text} never held: the walk ended without it")
            console().print(visible(said), markup=False, highlight=False)
    return EXIT_OK if end is WalkEnd.FINISHED or pause is not None else EXIT_FOUND


MAX_RUNS, MAX_JOBS = 100_000, 64


def check_runs(args: argparse.Namespace) -> None:
    """``--runs`` and ``--jobs`` make sense together, and without the options of a single walk (their bounds are
    their parsers')."""
    if args.runs is None:
        if args.jobs is not None:
            fail("--jobs runs walks at once: it needs --runs N")
        return
    if args.trace:
        fail("--trace saves one walk; leave it out with --runs (or walk once, with --trace)")
    if args.transcripts:
        fail("--transcripts shows one walk's decisions; leave it out with --runs")
    if args.until is not None:
        fail("--until pauses one walk; leave it out with --runs (or walk once, with --until)")


def check_budgets(args: argparse.Namespace) -> None:
    """``--budgets`` walks with each budget; the options of one walk (or of ``--runs``) do not go with it."""
    if args.budgets is None:
        if args.expect is not None:
            fail("--expect names the node a budget sweep looks for: it needs --budgets N,N,...")
        return
    for given, option in ((args.max_visits, "--max-visits"), (args.runs, "--runs"), (args.trace, "--trace"),
                          (args.force or None, "--force"), (args.transcripts or None, "--transcripts"),
                          (args.until, "--until")):
        if given is not None:
            fail(f"--budgets and {option} cannot go together; the budgets walk once each, with these visit budgets")


def run_runs(corpus: Corpus, settings: WalkSettings, navigator: TreeNavigator, runs: int, jobs: int,
             as_json: bool, forces: Sequence[Force] = (), wiring: Wiring = UNWIRED) -> int:
    """``walk --runs N``: the same walk N times, and how stable it is (explorer.walks.stability)."""
    from ..walks.stability import StabilityRun, report_lines, stability_to_json

    run = StabilityRun(corpus, settings, navigator, runs, jobs=jobs, forces=forces, hook=wiring.hook())
    stability = run.run()
    if as_json:
        write_json(stability_to_json(stability))
    else:
        sys.stdout.write("\n".join(report_lines(stability, corpus.title_of)) + "\n")
    return EXIT_OK if stability.failed == 0 else EXIT_FOUND


def run_budgets(corpus: Corpus, settings: WalkSettings, navigator: TreeNavigator, budgets: Sequence[int],
                expect: str | None, as_json: bool, wiring: Wiring = UNWIRED) -> int:
    """``walk --budgets``: what lands at each budget, and (``--expect ID``) the smallest budget that lands ID; over
    an LLM only the largest budget's calls are made (explorer.walks.evaluation.sweep)."""
    from ..corpora.questions import Question
    from ..walks.evaluation import sweep

    question = Question("query", settings.query, (expect,) if expect is not None else (), 0)
    found = sweep(corpus, [question], settings, budgets, navigator=navigator, hook=wiring.hook())
    lands_from = found.lands_from(0) if expect is not None else None
    if as_json:
        write_json({
            "query": settings.query, "navigator": settings.model, "expect": expect,
            "budgets": [{"budget": row.budget, "landed": list(row.outcomes[0].landed),
                         "visits_used": row.outcomes[0].visits_used, "live_calls": row.live_calls,
                         "reused": row.reused, "end": str(row.outcomes[0].end)} for row in found.rows],
            "lands_from": lands_from,
        })
    else:
        width = max(len(str(b)) for b in found.budgets)
        lines = [visible(f"Walk {settings.query} · {short_model(settings)} at budgets "
                         f"{', '.join(map(str, found.budgets))}")]
        for row in found.rows:
            outcome = row.outcomes[0]
            landed = ", ".join(outcome.landed) or "nothing"
            how = " (re-walked from the largest budget's decisions)" if row.reused else ""
            visits = f"{outcome.visits_used} visit" + ("" if outcome.visits_used == 1 else "s")
            lines.append(visible(f"  budget {row.budget:>{width}}  {visits} · landed {landed}{how}"))
        if expect is not None:
            lines.append(visible(f"{expect} lands from {lands_from}" if lands_from is not None else
                                 f"{expect} does not land within {max(found.budgets)}"))
        sys.stdout.write("\n".join(lines) + "\n")
    return EXIT_OK


def cmd_walk(argv: Sequence[str]) -> int:
    parser = Parser(prog=f"{PROG} walk", description="Run one walk headless and print it.")
    parser.add_argument("corpus", metavar="CORPUS", type=path_text,
                        help="a .yaml, PageIndex .json, .md or .pdf corpus, or a folder")
    parser.add_argument("query", metavar="QUERY", type=query_text, help="the question to walk for")
    add_walk_options(parser)
    add_force_option(parser)
    add_pdf_option(parser)
    add_map_option(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    parser.add_argument("--trace", metavar="FILE", type=path_text,
                        help="also save the walk as a trace file (JSON Lines)")
    parser.add_argument("--runs", type=whole_number(2, MAX_RUNS), metavar="N",
                        help="walk the query N times (2 or more) and report how stable the walk is: how often each "
                             "node was chosen, entered and landed, the distinct landed sets, where the walks part")
    parser.add_argument("--jobs", type=whole_number(1, MAX_JOBS), metavar="J",
                        help="with --runs: walks run at once, on threads (for navigators that wait on the network)")
    parser.add_argument("--budgets", type=budget_list, metavar="N,N,...",
                        help="walk at each of these visit budgets (3,5,8,15) and print what lands at each; over an "
                             "LLM only the largest budget's calls are made")
    parser.add_argument("--until", metavar="COND", help="stop the walk at the first step where COND holds: "
                        "offered:ID, entered:ID, visits-left:N, wrong-turn:ID, never-offered, failure or forced")
    parser.add_argument("--expect", metavar="ID", help="with --budgets: also say the smallest budget that lands ID")
    add_llm_options(parser)
    add_telemetry_options(parser)
    add_overwrite_option(parser)
    args = parser.parse_args(argv)
    if not args.query.strip():
        fail("the query is blank; ask a question")
    check_runs(args)
    check_budgets(args)
    args.navigator = llm_model(args, args.navigator)
    wiring = Wiring(hearing=report_local_model_loading(), folders=folders_from(args))
    if args.trace:
        check_writable(args.trace)
    # Before the corpus: a typo should not wait for a big load.
    navigator = navigator_for(args.navigator, wiring=wiring)
    check_apart(args, ("the corpus", args.corpus), ("the PDF", args.pdf), ("the map variant", args.map),
                *read_by(args.navigator), ledger=wiring.ledger)
    corpus = corpus_at(args.corpus, pdf=args.pdf, summaries=pdf_summaries(args, args.corpus), map_file=args.map)
    forces = forces_from(args.force, corpus)
    if args.expect is not None and args.expect not in corpus.index:
        fail(visible(f"--expect {args.expect}: no node {args.expect!r} in {args.corpus}; give a node id of the corpus"))
    until = None
    if args.until is not None:
        try:
            until = parse_until(args.until, corpus.index)
        except UntilError as exc:
            fail(visible(f"--until {args.until}: {exc}"))
    telemetry = telemetry_from(args, ledger=wiring.ledger)
    if telemetry is not None:  # the same wiring (its ledger holds the telemetry's file), observed by the telemetry
        wiring = replace(wiring, observers=(telemetry.export_walk,))
    try:
        if args.budgets is not None:
            return run_budgets(corpus, settings_from(args, args.query, args.navigator, args.on_failure), navigator,
                               args.budgets, args.expect, args.json, wiring)
        if args.runs is not None:
            return run_runs(corpus, settings_from(args, args.query, args.navigator, args.on_failure), navigator,
                            args.runs, args.jobs or 1, args.json, forces, wiring)
        return run_walk(corpus, settings_from(args, args.query, args.navigator, args.on_failure), navigator,
                        args.json, args.trace, forces, args.transcripts, wiring, until)
    finally:
        if telemetry is not None:
            telemetry.close()
