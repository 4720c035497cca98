"""Rich renderings for the headless commands: a walk as a tree, landed nodes, summaries, eval tables.

Every piece of corpus or navigator text goes in through :func:`safe_text.safe`,
never as markup.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from core import (
    CandidatesOffered,
    NavigatorChose,
    NavigatorFailed,
    NodeEntered,
    PathStopped,
    Transcript,
    WalkEvent,
)

from ..corpora import Corpus
from ..corpora.validate import CorpusStats, QuestionSetReport, ValidationReport
from ..ending import WalkEnd
from ..navigators.answered import Answered
from ..safe_text import safe, visible
from ..walk_settings import policy_note
from ..walks.compare import Comparison, Divergence, Landing
from ..walks.decisions import Decision, decisions_of
from ..walks.describe import (
    REASON_STYLE,
    calls_words,
    cost_text,
    count_candidates,
    count_of,
    ending_text,
    line,
    path_text,
    stop_line,
    visits_left,
)
from ..walks.evaluation import BudgetChart, EvalSummary, QuestionOutcome, cached_words, draw_chart
from ..walks.evaluation.blame import BlameKind, flat_words
from ..walks.habits import walk_habits
from ..walks.ranking import rank_landed
from ..walks.state import WalkState


def transcript_lines(transcript: Transcript | None, full: bool) -> list[Text]:
    """The transcript of a decision: each entry in full, or (by default) one line that sizes each entry."""
    if not transcript:
        return []
    if not full:
        sizes = " · ".join(f"{visible(label)} {len(body):,} chars" for label, body in transcript)
        return [Text(f"transcript: {sizes} (--transcripts shows them)", style="dim")]
    lines = []
    for label, body in transcript:
        entry = safe(label, "bold cyan", width=60)
        entry.append("\n")
        entry.append_text(safe(body, multiline=True))
        lines.append(entry)
    return lines


def walk_tree(events: Sequence[WalkEvent], title: str = "start", *, forced: Collection[int] = (),
              transcripts: bool = False) -> Tree:
    """The walk as a Rich tree: offers, choices and stops under the node they happened at.

    A decision a person forced is marked ``⚑ forced``; each decision's
    transcript is sized on one line, or shown whole with ``transcripts``.
    """
    root = Tree(Text(title, style="bold"))
    nodes: dict[tuple[str, ...], Tree] = {(): root}
    answers = {d.answer_seq: d for d in decisions_of(events, forced)}  # each answer's decision, by its number
    unjudged = {d.node for d in answers.values() if d.never_judged}
    pending: CandidatesOffered | None = None
    for seq, event in enumerate(events, start=1):
        decision = answers.get(seq)
        if isinstance(event, CandidatesOffered):
            pending = event
        elif isinstance(event, NavigatorChose | NavigatorFailed) and decision is not None:
            pending, how = decision.offer, decision.how
            parent = nodes.get(tuple(pending.path), root)
            sent = (f"{pending.chars_shipped:,} chars shipped" if how is Answered.LIVE
                    else f"{pending.chars_shipped:,} chars, not sent: {how.value}")
            offer = parent.add(line(("▸ offered ", "bold"), f"{count_candidates(pending)} · ",
                                    f"{visits_left(pending.remaining_visits)} · {sent}"))
            chosen = set(event.selected) if isinstance(event, NavigatorChose) else set()
            for candidate in pending.candidates:
                mark = ("✓ ", "green") if candidate.id in chosen else ("· ", "dim")
                offer.add(line(mark, safe(candidate.id, "bold", width=40), "  ", safe(candidate.title, width=60),
                               ("  " if candidate.summary else "", ""), safe(candidate.summary, "dim", width=80)))
            if isinstance(event, NavigatorChose):
                picked = Text(", ").join(safe(i, "bold", width=40) for i in event.selected) or Text("nothing")
                verb = ("⚑ forced ", "bold yellow") if how is Answered.FORCED else ("→ chose ", "bold")
                took = {Answered.LIVE: f"  ({event.seconds:.2f} s)", Answered.FORCED: ""}.get(how, f"  ({how.value})")
                choice = line(verb, picked, took)
                if event.usage:
                    choice.append(f"  {usage_words(event.usage)}", style="dim")
                note = parent.add(choice)
                if event.rationale:
                    note.add(safe(event.rationale, "italic", width=200))
                if event.hallucinated:
                    ghosts = Text(", ").join(safe(i, "bold", width=40) for i in event.hallucinated)
                    note.add(line(("hallucinated (not offered): ", "magenta"), ghosts))
                habits = walk_habits(events, decision)
                if habits:
                    note.add(line(("habits: ", "yellow"), safe(" · ".join(habits.notes()), width=400)))
                for entry in transcript_lines(event.transcript, transcripts):
                    note.add(entry)
            else:
                failed = parent.add(line(("✗ navigator failed: ", "bold red"), safe(event.error, "red", width=200)))
                failed.add(Text(f"on failure: {event.policy.value}", style="dim"))
                for entry in transcript_lines(event.transcript, transcripts):
                    failed.add(entry)
            pending = None
        elif isinstance(event, NodeEntered):
            parent = nodes.get(tuple(event.path)[:-1], root)
            nodes[tuple(event.path)] = parent.add(line(
                ("▾ ", "bold blue"), safe(event.node.id, "bold blue", width=50), "  ", safe(event.node.title, width=70),
                (f"  (depth {event.depth} · {visits_left(event.remaining_visits)})", "dim")))
        elif isinstance(event, PathStopped):
            nodes.get(tuple(event.record.path), root).add(stop_line(event.record, unjudged))
    if pending is not None:
        nodes.get(tuple(pending.path), root).add(line(("▸ offered ", "bold"), f"{len(pending.candidates)} candidates "
                                                      "(no answer yet)"))
    return root


def landed_table(state: WalkState, events: Sequence[WalkEvent], corpus: Corpus,
                 forced: Collection[int] = ()) -> Table | Text:
    """The landed nodes ranked (:func:`~explorer.walks.ranking.rank_landed`), one row each: the best first (``★``),
    the stand-ins last (``◌``), each with what put it there and its stop reason as ``state`` says it
    (:meth:`WalkState.reason_of`); ``Landed nodes: none`` when nothing landed (e.g. under on-failure empty)."""
    ranked = rank_landed(state, events, forced) if state.result is not None and state.result.documents else ()
    if not ranked:
        return line(("Landed nodes: ", "bold"), ("none", "dim"))
    table = Table(title="Landed nodes, ranked", title_justify="left", expand=False)
    for column in ("#", "title", "why", "id", "stop reason", "depth", "path"):
        table.add_column(column, overflow="fold", no_wrap=column in ("#", "id", "stop reason"))
    for node in ranked:
        record = node.record
        reason = state.reason_of(record)
        title = corpus.title_of(node.node) if node.node in corpus.index else node.node
        place = "◌" if node.place is None else f"★ {node.place}" if node.best else str(node.place)
        why = node.why if node.stand_in is None else f"{node.stand_in} · {node.why}"
        table.add_row(
            place,
            safe(title, "bold" if node.best else "", width=60),
            safe(why, "dim", width=200),
            safe(node.node, "bold", width=40),
            Text(reason, style=REASON_STYLE.get(reason, "")),
            str(max(len(record.path) - 1, 0)),
            safe(path_text(tuple(record.path)), "dim", width=120),
        )
    return table


def walk_summary(state: WalkState, end: str, error: str | None, paused: str | None = None) -> Text:
    """The counts on one line, then why the walk ended, in words (:func:`describe.ending_text`); a walk stopped
    where ``walk --until`` held says ``paused`` and nothing of a cancel."""
    if paused is not None:
        return line(("paused", "bold yellow"), f" · {cost_text(state.cost(), state.budget)}")
    text = line((f"{end}", "bold green" if end == WalkEnd.FINISHED else "bold red"),
                f" · {cost_text(state.cost(), state.budget)}")
    if state.ended is None:
        state.close(WalkEnd(end), error)
    ending = ending_text(state)
    if ending:
        text.append("\n")
        text.append_text(ending)
    return text


def map_note(corpus: Corpus) -> str:
    """What a line of settings adds for a corpus walked with a map variant (`` · map handbook.map.yaml``); nothing
    without one."""
    return f" · map {corpus.map.name}" if corpus.map is not None else ""


def walk_report(events: Sequence[WalkEvent], corpus: Corpus, end: str, error: str | None, *,
                forced: Collection[int] = (), transcripts: bool = False, paused: str | None = None) -> RenderableType:
    state = WalkState.from_events(events, forced)
    header = Text()
    if state.step:
        header = line(("Walk ", "bold"), safe(state.query, "bold yellow"), "\n",
                      safe(f"{corpus.title} ({corpus.path})", "dim"), " ",
                      safe(f"· {state.model} · budget {state.budget} · depth limit {state.max_depth} · on failure "
                           f"{state.on_failure.value}{policy_note(state.policy, state.alpha)}"
                           f"{map_note(corpus)}", "dim"))
    parts: list[RenderableType] = [header, walk_tree(events, forced=forced, transcripts=transcripts)]
    if state.result is not None:
        parts.append(landed_table(state, events, corpus, forced))
    parts.append(walk_summary(state, end, error, paused))
    return Group(*parts)


def stats_table(stats: CorpusStats) -> Table:
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    rows = [
        ("nodes", f"{stats.nodes:,}"), ("roots", f"{stats.roots:,}"), ("leaves", f"{stats.leaves:,}"),
        ("depth", f"{stats.depth} (roots are 0)"),
        ("widest node", f"{stats.widest or '-'} ({stats.widest_children} children)"),
        ("title + summary chars", f"{stats.title_summary_chars:,}"), ("content chars", f"{stats.content_chars:,}"),
    ]
    for key, value in rows:
        table.add_row(key, safe(value))
    return table


def validation_report(report: ValidationReport) -> RenderableType:
    parts: list[RenderableType] = []
    if report.corpus is not None and report.stats is not None:
        parts.append(line(("Corpus ", "bold"), safe(report.corpus.title, "bold"), "  ",
                          safe(f"source {report.corpus.source} · {report.corpus.format}", "dim")))
        parts.append(stats_table(report.stats))
    for finding in report.errors:
        parts.append(line(("error: ", "bold red"), safe(finding.message)))
    for finding in report.warnings:
        parts.append(line(("warning: ", "yellow"), safe(finding.message)))
    if report.more_warnings:
        parts.append(line(("warning: ", "yellow"), f"… and {report.more_warnings:,} more (the first "
                          f"{len(report.warnings):,} are shown)"))
    parts.append(_verdict(len(report.errors), report.warning_count))
    return Group(*parts)


def _verdict(errors: int, warnings: int) -> Text:
    verdict = "ok" if not errors else count_of(errors, "error")
    return line((verdict, "bold red" if errors else "bold green"), f", {count_of(warnings, 'warning')}")


def question_set_report(report: QuestionSetReport) -> RenderableType:
    """``validate QUESTIONS``: the set, its corpus, every error and warning (each with its question id)."""
    parts: list[RenderableType] = []
    if report.questions is not None:
        head = line(("Question set ", "bold"), safe(report.path.name, "bold"),
                    f" · {count_of(report.count, 'question')}")
        if report.corpus is not None:
            head.append(" on ")
            head.append_text(safe(f"{report.corpus.title} ({report.corpus.path})", "dim"))
        parts.append(head)
    for finding in report.errors:
        parts.append(line(("error: ", "bold red"), safe(finding.message)))
    for finding in report.warnings:
        parts.append(line(("warning: ", "yellow"), safe(finding.message)))
    parts.append(_verdict(len(report.errors), len(report.warnings)))
    return Group(*parts)


def _mark(good: bool) -> Text:
    return Text("✓", style="green") if good else Text("✗", style="red")


def eval_table(outcomes: Sequence[QuestionOutcome], *, other: tuple[str, Sequence[bool]] | None = None) -> Table:
    """One row per question: hit, hit@1, hit@3, why a miss is a miss, the walk's figures, what it landed; with
    ``other`` (a name, and whether it landed each question: ``eval --compare-policy``), whether it lands each miss."""
    table = Table(title="Evaluation", title_justify="left")
    lands = [(f"{other[0]} lands", "center")] if other is not None else []
    for column, justify in (("question", "left"), ("hit", "center"), ("@1", "center"), ("@3", "center"),
                            ("why missed", "left"), *lands, ("branch", "center"), ("wrong turn", "right"),
                            ("visits", "right"), ("calls", "right"), ("chars", "right"), ("landed", "right"),
                            ("precision", "right"), ("landed ids", "left"), ("stops", "left")):
        # Ids are never broken mid-word: the question column is as wide as its longest id (up to 40), and the
        # landed ids wrap between ids only (one longer than the column ends in an ellipsis).
        whole = {"question": min(40, max((len(o.question.id) for o in outcomes), default=8))}
        table.add_column(column, justify=justify,  # type: ignore[arg-type]
                         overflow="ellipsis" if column in ("question", "landed ids") else "fold",
                         min_width=whole.get(column), no_wrap=column == "question")
    for number, o in enumerate(outcomes):
        stops = ", ".join(f"{reason} {count:,}" for reason, count in o.stop_reasons.items())
        if o.error:
            stops = f"{o.end}: {o.error}"
        landed_there = [] if other is None else [_mark(other[1][number]) if o.miss is not None else Text("")]
        table.add_row(
            safe(o.question.id, "bold", width=40),
            _mark(o.hit), _mark(o.hit_at_1), _mark(o.hit_at_3),
            Text(o.miss.reason.value if o.miss is not None else "", style="yellow"),
            *landed_there,
            _mark(o.branch_entered),
            "-" if o.first_wrong_turn is None else str(o.first_wrong_turn),
            f"{o.visits_used:,}", calls_words(o.cost, decisions=""), f"{o.chars_shipped:,}",
            f"{o.landed_count:,}", "-" if o.precision is None else f"{o.precision:.0%}",
            safe(", ".join(o.landed) or "-", width=80), safe(stops, "dim", width=120),
        )
    return table


def miss_lines(outcomes: Sequence[QuestionOutcome], *, said: Sequence[str] | None = None,
               title: str = "Why each miss is a miss", nodes: int = 0) -> RenderableType:
    """Why each miss is a miss, one line each: ``money-back: turned away: at step 2, judging the roots, …``; under
    it, a judged miss's verdict (``verdict: the map hid it: …``) and where a flat search over the corpus's ``nodes``
    ranks it; with ``said`` (a line per question), that line under each miss (``best-first lands it at the same
    budget (15)``)."""
    misses = [(number, o) for number, o in enumerate(outcomes) if o.miss is not None]
    if not misses:
        return Text("No miss.", style="bold green")
    lines = [Text(f"{title} ({count_of(len(misses), 'miss', 'misses')}):", style="bold")]
    for number, o in misses:
        assert o.miss is not None
        lines.append(line("  ", safe(o.question.id, "bold", width=40), ": ", safe(o.miss.sentence(), width=300)))
        if said is not None:
            lines.append(line("    ", safe(said[number], "italic", width=300)))
        if o.blame is not None and o.blame.says != o.miss.sentence():
            lines.append(line("    ", ("verdict: ", "bold"), safe(o.blame.says, width=600)))
        flat = flat_words(o.flat, nodes) if nodes else ""
        if flat:
            lines.append(line("    ", safe(flat, "dim", width=200)))
    return Group(*lines)


def eval_summary(summary: EvalSummary) -> Text:
    precision = "-" if summary.precision is None else f"{summary.precision:.0%}"
    text = line(
        ("hit rate ", "bold"), f"{summary.hit_rate:.0%} ({summary.hits:,}/{summary.questions:,})",
        ("  ·  hit@1 ", "bold"), f"{summary.hit_at_1_rate:.0%} ({summary.hits_at_1:,})",
        ("  ·  hit@3 ", "bold"), f"{summary.hit_at_3_rate:.0%} ({summary.hits_at_3:,})",
        ("  ·  landed ", "bold"), f"{summary.mean_landed:.1f} per question",
        ("  ·  precision ", "bold"), f"{precision} ({summary.correct:,}/{summary.landed:,})",
        ("  ·  branch entry ", "bold"), f"{summary.branch_rate:.0%}",
        ("  ·  mean visits ", "bold"), f"{summary.mean_visits:.1f}",
        ("  ·  mean calls ", "bold"), f"{summary.mean_calls:.1f}",
        ("  ·  mean chars shipped ", "bold"),
        f"{summary.mean_chars:,.0f} ({summary.chars_vs_titles_summaries:.1%} of all titles+summaries, "
        f"{summary.chars_vs_content:.1%} of the content)",
        ("  ·  valid answers ", "bold"),
        f"{summary.valid_answer_rate:.0%} ({summary.valid_answers:,}/{summary.answers:,})",
    )
    if summary.cached:  # mean calls 0.0 is no figure of what a walk costs: say what the cache saved
        text.append("  ·  ")
        text.append(cached_words(summary.cached, summary.questions, summary.mean_chars_saved), style="bold yellow")
    if summary.misses:
        text.append("\n")
        text.append("misses ", style="bold")
        text.append(", ".join(f"{reason} {count:,}" for reason, count in summary.misses.items()))
    if summary.verdicts:
        text.append("\n")
        text.append("verdicts ", style="bold")
        text.append(", ".join(f"{BlameKind(kind).words} {count:,}" for kind, count in summary.verdicts.items()))
    if summary.flat_hits_at_3 is not None and summary.judged:
        text.append("\n")
        text.append("flat search hit@3 ", style="bold")
        text.append(f"{summary.flat_hits_at_3 / summary.judged:.0%} ({summary.flat_hits_at_3:,}/{summary.judged:,}): "
                    f"the judge ranking every node, no tree, beside the walk's {summary.hit_at_3_rate:.0%}")
    habits = summary.habits.words()
    if habits:  # only a run an LLM answered
        text.append("\n")
        text.append(habits, style="yellow")
    return text


def _decision_line(name: str, decision: Decision | None, absent: str = "had ended: no decision here") -> Text:
    text = Text(f"  {name} ", style="bold")
    if decision is None:
        return text + Text(absent, style="dim")
    answer = decision.answer
    steps = f"step {decision.offer_seq}" + (f"→{decision.answer_seq}" if decision.answer_seq else "")
    text.append(f"({steps}) ", style="dim")
    offered = Text(", ").join(safe(c.id, width=30) for c in decision.offer.candidates[:8])
    if isinstance(answer, NavigatorChose):
        text.append("⚑ forced " if decision.forced else "chose ", style="bold yellow" if decision.forced else "")
        text.append_text(Text(", ").join(safe(i, "bold", width=40) for i in answer.selected) or Text("nothing"))
        if answer.rationale:
            text.append(" — ")
            text.append_text(safe(answer.rationale, "italic", width=160))
    elif isinstance(answer, NavigatorFailed):
        text.append("failed: ", style="red")
        text.append_text(safe(answer.error, "red", width=160))
    else:
        text.append("no answer yet", style="dim")
    text.append("\n      offered: ", style="dim")
    text.append_text(offered)
    if len(decision.offer.candidates) > 8:
        text.append(f" +{len(decision.offer.candidates) - 8}", style="dim")
    return text


def _answer_words(decision: Decision | None) -> Text:
    if decision is None:
        return Text("never judged it", style="dim")
    answer = decision.answer
    if isinstance(answer, NavigatorChose):
        picked = Text(", ").join(safe(i, width=40) for i in answer.selected) or Text("nothing")
        return (Text("⚑ forced ", style="yellow") + picked) if decision.forced else Text("chose ") + picked
    if isinstance(answer, NavigatorFailed):
        return line(("failed: ", "red"), safe(answer.error, "red", width=80))
    return Text("no answer", style="dim")


def _divergence_line(comparison: Comparison, divergence: Divergence) -> Text:
    first = comparison.is_first(divergence)
    where = "the roots" if divergence.node is None else divergence.node
    text = line(("  ▶ " if first else "    ", "bold"), f"decision {divergence.number} at ",
                safe(where, "bold" if first else "", width=60), f" — {divergence.kind.value}: ")
    text.append("A ")
    text.append_text(_answer_words(divergence.a))
    text.append(" · B ")
    text.append_text(_answer_words(divergence.b))
    if first:
        text.stylize("bold")
    return text


def comparison_report(comparison: Comparison) -> RenderableType:
    """``diff``'s text: notes up front, the first divergence with both answers, every divergence (the first
    marked), every forced decision, the landings, the costs."""
    parts: list[RenderableType] = [line(("Comparing ", "bold"), safe(comparison.a_name, "bold cyan"), "  with  ",
                                        safe(comparison.b_name, "bold magenta"))]
    for note in comparison.notes:
        parts.append(line(("note: ", "yellow"), safe(note)))
    if comparison.landing:  # diff --expect: who landed it, and whose fault each miss was
        parts.append(line(("Expected: ", "bold"), safe(comparison.landing, "bold", width=400)))
        for walk, says, flat in comparison.verdicts:
            parts.append(line(f"  {walk} ", ("verdict: ", "bold"), safe(says, width=600)))
            if flat:
                parts.append(line("    ", safe(flat, "dim", width=200)))
    divergence = comparison.divergence
    if divergence is None:
        parts.append(Text("Same decisions: the two walks made the same choices at every offer.", style="bold green"))
    else:
        where = "the roots" if divergence.node is None else divergence.node
        parts.append(line(("First divergence: ", "bold"), f"decision {divergence.number}, at ",
                          safe(where, "bold", width=60), f" ({divergence.kind.value})"))
        parts.append(_decision_line("A", divergence.a))
        parts.append(_decision_line("B", divergence.b))
        parts.append(Text(f"Every divergence ({len(comparison.divergences):,}; ▶ the first):", style="bold"))
        parts.extend(_divergence_line(comparison, d) for d in comparison.divergences)
    if comparison.forced:
        parts.append(Text(f"Forced decisions ({len(comparison.forced):,}):", style="bold"))
        for forced in comparison.forced:
            answer = forced.decision.answer
            picked = answer.selected if isinstance(answer, NavigatorChose) else ()
            where = "the roots" if forced.decision.node is None else forced.decision.node
            parts.append(line(f"  {forced.walk} decision {forced.number} (step {forced.decision.offer_seq}) at ",
                              safe(where, "bold", width=60), (" ⚑ forced ", "bold yellow"),
                              Text(", ").join(safe(i, width=40) for i in picked) or Text("stop here")))
    else:
        parts.append(line(("Forced decisions: ", "bold"), ("none", "dim")))

    def landings(title: str, rows: tuple[Landing, ...], which: str) -> Text:
        text = Text(f"{title}: ", style="bold")
        if not rows:
            return text + Text("none", style="dim")
        for number, row in enumerate(rows):
            if number:
                text.append(", ")
            text.append_text(safe(row.node, width=50))
            reasons = row.a if which == "a" else row.b if which == "b" else f"{row.a} / {row.b}"
            text.append(f" ({reasons})", style="dim")
        return text

    parts.append(landings("Landed only in A", comparison.only_a, "a"))
    parts.append(landings("Landed only in B", comparison.only_b, "b"))
    parts.append(landings("Landed in both", comparison.both, "both"))
    table = Table(box=None, pad_edge=False, show_header=True)
    table.add_column("")
    table.add_column("A", justify="right")
    table.add_column("B", justify="right")
    a, b = comparison.a_totals, comparison.b_totals
    table.add_row("visits", f"{a.visits:,}", f"{b.visits:,}")
    table.add_row("navigator calls", calls_words(a), calls_words(b))
    table.add_row("characters shipped", f"{a.chars:,}", f"{b.chars:,}")
    if a.prompt_tokens or a.completion_tokens or b.prompt_tokens or b.completion_tokens:
        table.add_row("tokens in / out", f"{a.prompt_tokens:,} / {a.completion_tokens:,}",
                      f"{b.prompt_tokens:,} / {b.completion_tokens:,}")
    parts.append(table)
    return Group(*parts)


def usage_words(usage: Mapping[str, object]) -> str:
    """A call's token usage in words: ``568 prompt + 67 completion tokens`` (what else it counted after a ``·``,
    ``total_tokens`` left out as the sum the reader just read)."""
    def count(value: object) -> str:
        return f"{value:,}" if isinstance(value, int | float) and not isinstance(value, bool) else visible(str(value))

    parts = [f"{count(usage[key])} {key.removesuffix('_tokens')}" for key in ("prompt_tokens", "completion_tokens")
             if key in usage]
    words = " + ".join(parts) + " tokens" if parts else ""
    rest = [f"{visible(str(key)).replace('_', ' ')} {count(value)}" for key, value in usage.items()
            if key not in ("prompt_tokens", "completion_tokens", "total_tokens") and not isinstance(value, Mapping)]
    if not parts and "total_tokens" in usage:
        words = f"{count(usage['total_tokens'])} tokens"
    return " · ".join(([words] if words else []) + rest) or "tokens: none counted"


CHART_SIZE = (72, 18)
"""Cells the command line's chart takes (``eval --budgets``): its width fits an 80-column terminal."""


def budget_chart(chart: BudgetChart, terminal: bool) -> Text:
    """``chart`` as the command line prints it: in colour on a terminal (its escapes read as styles), plain text
    otherwise (a file, a pipe, CI: no escape code)."""
    drawn = draw_chart(chart, *CHART_SIZE, colour=terminal)
    return Text.from_ansi(drawn) if terminal else Text(drawn)
