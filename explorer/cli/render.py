"""Rich renderings for the headless commands: a walk as a tree, landed nodes, summaries, eval tables.

Every piece of corpus or navigator text goes in through :func:`safe_text.safe`,
never as markup.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

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
    WalkResult,
)

from ..corpora import Corpus
from ..corpora.validate import CorpusStats, ValidationReport
from ..ending import WalkEnd
from ..safe_text import safe, visible
from ..walks.compare import Comparison, Landing
from ..walks.describe import REASON_STYLE, count_candidates, ending_text, line, stop_line
from ..walks.evaluation import EvalSummary, QuestionOutcome
from ..walks.history import Decision
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
    pending: CandidatesOffered | None = None
    for seq, event in enumerate(events, start=1):
        if isinstance(event, CandidatesOffered):
            pending = event
        elif isinstance(event, NavigatorChose | NavigatorFailed) and pending is not None:
            parent = nodes.get(tuple(pending.path), root)
            offer = parent.add(line(("▸ offered ", "bold"), f"{count_candidates(pending)} · ",
                                    f"{pending.remaining_visits} visits left · {pending.chars_shipped} chars shipped"))
            chosen = set(event.selected) if isinstance(event, NavigatorChose) else set()
            for candidate in pending.candidates:
                mark = ("✓ ", "green") if candidate.id in chosen else ("· ", "dim")
                offer.add(line(mark, safe(candidate.id, "bold", width=40), "  ", safe(candidate.title, width=60),
                               ("  " if candidate.summary else "", ""), safe(candidate.summary, "dim", width=80)))
            if isinstance(event, NavigatorChose):
                picked = Text(", ").join(safe(i, "bold", width=40) for i in event.selected) or Text("nothing")
                verb = ("⚑ forced ", "bold yellow") if seq in forced else ("→ chose ", "bold")
                choice = line(verb, picked, f"  ({event.seconds:.2f} s)")
                if event.usage:
                    choice.append(f"  tokens: {dict(event.usage)}", style="dim")
                note = parent.add(choice)
                if event.rationale:
                    note.add(safe(event.rationale, "italic", width=200))
                if event.hallucinated:
                    ghosts = Text(", ").join(safe(i, "bold", width=40) for i in event.hallucinated)
                    note.add(line(("hallucinated (not offered): ", "magenta"), ghosts))
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
                (f"  (depth {event.depth} · {event.remaining_visits} visits left)", "dim")))
        elif isinstance(event, PathStopped):
            nodes.get(tuple(event.record.path), root).add(stop_line(event.record))
    if pending is not None:
        nodes.get(tuple(pending.path), root).add(line(("▸ offered ", "bold"), f"{len(pending.candidates)} candidates "
                                                      "(no answer yet)"))
    return root


def landed_table(result: WalkResult, corpus: Corpus) -> Table:
    table = Table(title="Landed nodes", title_justify="left", expand=False)
    for column in ("#", "id", "title", "stop reason", "depth", "path"):
        table.add_column(column, overflow="fold")
    for number, document in enumerate(result.documents, start=1):
        metadata = document.metadata
        reason = str(metadata.get("hierarchyStopReason", ""))
        table.add_row(
            str(number),
            safe(document.id, "bold", width=40),
            safe(str(metadata.get("reasoningTitle", "")), width=60),
            Text(reason, style=REASON_STYLE.get(reason, "")),
            str(metadata.get("hierarchyDepth", "")),
            safe(" > ".join(metadata.get("hierarchyPath", ())), "dim", width=120),
        )
    return table


def walk_summary(state: WalkState, end: str, error: str | None) -> Text:
    """The counts on one line, then why the walk ended, in words (:func:`describe.ending_text`)."""
    text = line((f"{end}", "bold green" if end == WalkEnd.FINISHED else "bold red"),
                f" · visits used {state.visits_used}/{state.budget} · navigator calls {state.calls} · "
                f"characters shipped {state.chars_shipped}")
    if state.ended is None:
        state.close(WalkEnd(end), error)
    ending = ending_text(state)
    if ending:
        text.append("\n")
        text.append_text(ending)
    return text


def walk_report(events: Sequence[WalkEvent], corpus: Corpus, end: str, error: str | None, *,
                forced: Collection[int] = (), transcripts: bool = False) -> RenderableType:
    state = WalkState.from_events(events, forced)
    header = Text()
    if state.step:
        header = line(("Walk ", "bold"), safe(state.query, "bold yellow"), "\n",
                      safe(f"{corpus.title} ({corpus.path})", "dim"), " ",
                      safe(f"· {state.model} · budget {state.budget} · depth limit {state.max_depth} · on failure "
                           f"{state.on_failure.value}", "dim"))
    parts: list[RenderableType] = [header, walk_tree(events, forced=forced, transcripts=transcripts)]
    if state.result is not None:
        parts.append(landed_table(state.result, corpus))
    parts.append(walk_summary(state, end, error))
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
    verdict = "ok" if report.ok else f"{len(report.errors)} error(s)"
    parts.append(line((verdict, "bold green" if report.ok else "bold red"), f", {report.warning_count:,} warning(s)"))
    return Group(*parts)


def eval_table(outcomes: Sequence[QuestionOutcome]) -> Table:
    table = Table(title="Evaluation", title_justify="left")
    for column, justify in (("question", "left"), ("hit", "center"), ("branch", "center"), ("wrong turn", "right"),
                            ("visits", "right"), ("calls", "right"), ("chars", "right"), ("landed", "left"),
                            ("stops", "left")):
        table.add_column(column, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for o in outcomes:
        stops = ", ".join(f"{reason} {count}" for reason, count in o.stop_reasons.items())
        if o.error:
            stops = f"{o.end}: {o.error}"
        table.add_row(
            safe(o.question.id, "bold", width=40),
            Text("✓", style="green") if o.hit else Text("✗", style="red"),
            Text("✓", style="green") if o.branch_entered else Text("✗", style="red"),
            "-" if o.first_wrong_turn is None else str(o.first_wrong_turn),
            str(o.visits_used), str(o.calls), f"{o.chars_shipped:,}",
            safe(", ".join(o.landed) or "-", width=80), safe(stops, "dim", width=120),
        )
    return table


def eval_summary(summary: EvalSummary) -> Text:
    return line(
        ("hit rate ", "bold"), f"{summary.hit_rate:.0%} ({summary.hits}/{summary.questions})",
        ("  ·  branch entry ", "bold"), f"{summary.branch_rate:.0%}",
        ("  ·  mean visits ", "bold"), f"{summary.mean_visits:.1f}",
        ("  ·  mean calls ", "bold"), f"{summary.mean_calls:.1f}",
        ("  ·  mean chars shipped ", "bold"),
        f"{summary.mean_chars:,.0f} ({summary.chars_vs_titles_summaries:.1%} of all titles+summaries, "
        f"{summary.chars_vs_content:.1%} of the content)",
        ("  ·  valid answers ", "bold"), f"{summary.valid_answer_rate:.0%} ({summary.valid_answers}/{summary.answers})",
    )


def _decision_line(name: str, decision: Decision | None) -> Text:
    text = Text(f"  {name} ", style="bold")
    if decision is None:
        return text + Text("had ended: no decision here", style="dim")
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


def comparison_report(comparison: Comparison) -> RenderableType:
    """``diff``'s text: notes up front, the first divergence with both answers, the landings, the costs."""
    parts: list[RenderableType] = [line(("Comparing ", "bold"), safe(comparison.a_name, "bold cyan"), "  with  ",
                                        safe(comparison.b_name, "bold magenta"))]
    for note in comparison.notes:
        parts.append(line(("note: ", "yellow"), safe(note)))
    divergence = comparison.divergence
    if divergence is None:
        parts.append(Text("Same decisions: the two walks made the same choices at every offer.", style="bold green"))
    else:
        where = "the roots" if divergence.node is None else divergence.node
        parts.append(line(("First divergence: ", "bold"), f"decision {divergence.number}, at ",
                          safe(where, "bold", width=60), f" ({divergence.kind.value})"))
        parts.append(_decision_line("A", divergence.a))
        parts.append(_decision_line("B", divergence.b))

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
    table.add_row("visits", str(a.visits), str(b.visits))
    table.add_row("navigator calls", str(a.calls), str(b.calls))
    table.add_row("characters shipped", f"{a.chars:,}", f"{b.chars:,}")
    parts.append(table)
    return Group(*parts)
