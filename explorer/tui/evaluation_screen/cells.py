"""The evaluation screen's cells and words (:mod:`.evaluation`): one side's cells of a question's row, the calls
column, a side's totals over the questions walked so far, and what the main view says of a question's walk."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from ...ending import WalkEnd
from ...numbers import counted
from ...safe_text import safe, styled
from ...walks.evaluation import BlameKind, Change, QuestionOutcome, cached_words, miss_column, miss_sentence
from ...walks.evaluation.blame import ordinal
from ...walks.habits import HabitCounts
from ...walks.state import Cost

SIDE_COLUMNS = ("hit", "why missed", "landed", "verdict", "flat", "@3", "precision", "branch", "wrong turn", "visits",
                "calls", "chars")
"""What decides a row comes first (hit, why it missed, how many nodes it landed, whose fault), before the long query
column: at 80×24 they are what shows."""
VERDICT_TITLE = 18
"""Cells of the node a verdict names (``map hid it · Refunds``) shown in its cell; a longer title ends in …."""
CELL_WIDTHS = (9, 16, 3, 13 + VERDICT_TITLE, 6, 3, 4, 3, 2, 4, 8, 7)
"""Room for any cell (``cancelled``, ``123,456``, ``map misled · …``): the rows fill in later, the widths stay (or the
heading's)."""
LABELS = ("hit", "why missed", "landed", "verdict", "flat", "@3", "prec.", "br.", "turn", "vis.", "calls", "chars")
SHORT_LABELS = ("hit", "why", "ld.", "verdict", "flat", "@3", "prec.", "br.", "turn", "vis.", "calls", "chars")
COMPARED = frozenset({"hit", "why missed", "verdict", "flat", "landed", "@3", "wrong turn"})
"""Two navigators side by side need the room: each side shows these (``A ld.`` is A's nodes landed, ``A turn`` its
first wrong turn)."""

VERDICT_STYLE = {BlameKind.MAP_HID: "bold magenta", BlameKind.MAP_MISLED: "bold magenta",
                 BlameKind.NAVIGATOR: "bold red", BlameKind.NO_SIGNAL: "dim"}
"""The map's verdicts stand out (no prompt fixes them), the navigator's in red; a limit's reason in yellow."""
CHANGE_STYLE = {Change.B_HITS: "bold green", Change.A_HITS: "bold red", Change.LANDED_DIFFERENTLY: "yellow"}


def verdict_cell(outcome: QuestionOutcome, title_of: Callable[[str], str], judging: bool = True) -> Text:
    """Whose fault a miss was, short (``map hid it · Refunds``, ``navigator erred``): ``…`` while it is judged,
    ``—`` for a miss held from a kept run that kept no verdict or when nothing judges (``--judge none``: not
    ``judging``), nothing for a hit."""
    if outcome.hit:
        return Text("")
    blame = outcome.blame
    if blame is None:
        return Text("…" if outcome.history is not None and judging else "—", style="dim")
    text = Text(blame.kind.short, style=VERDICT_STYLE.get(blame.kind, "yellow"))
    if blame.node is not None:
        title = safe(title_of(blame.node))
        title.truncate(VERDICT_TITLE, overflow="ellipsis")  # in cells: a wide title too
        text.append(" · ")
        text.append_text(title)
    return text


def flat_cell(outcome: QuestionOutcome) -> Text:
    """Where a flat search ranks the expected node (``2nd``), once judged: in its first 3, green."""
    if outcome.flat is None:
        return Text("")
    return Text(ordinal(outcome.flat), style="green" if outcome.flat <= 3 else "", justify="right")


def side_cells(outcome: QuestionOutcome | None, over: bool, title_of: Callable[[str], str],
               judging: bool = True) -> list[Text]:
    if outcome is None:
        waiting = Text("—" if over else "…", style="dim")
        return [waiting] + [Text("") for _ in SIDE_COLUMNS[1:]]
    if outcome.end != WalkEnd.FINISHED:
        hit = Text(str(outcome.end), style="bold yellow" if outcome.end == WalkEnd.CANCELLED else "bold red")
    else:
        hit = styled("✓ hit", "bold green") if outcome.hit else styled("✗ miss", "bold red")
    wrong = "—" if outcome.first_wrong_turn is None else str(outcome.first_wrong_turn)
    precision = "—" if outcome.precision is None else f"{outcome.precision:.0%}"
    return [hit, Text(miss_column(outcome), style="yellow"), Text(f"{outcome.landed_count:,}", justify="right"),
            verdict_cell(outcome, title_of, judging), flat_cell(outcome),
            Text("✓" if outcome.hit_at_3 else "", style="green"), Text(precision, justify="right"),
            Text("yes" if outcome.branch_entered else "no"), Text(wrong, justify="right"),
            Text(str(outcome.visits_used), justify="right"), Text(calls_cell(outcome.cost), justify="right"),
            Text(f"{outcome.chars_shipped:,}", justify="right")]


def calls_cell(cost: Cost) -> str:
    """The calls column, whole in its width: the live calls (``3``), the kind when no answer needed one
    (``cached``, ``replayed``), or live of all (``1/3``); the summary line says the rest."""
    without = cost.without_call
    if not without:
        return f"{cost.live_calls:,}"
    if not cost.live_calls and len(without) == 1:
        return next(iter(without))
    return f"{cost.live_calls:,}/{cost.answers:,}"


def totals(outcomes: list[QuestionOutcome | None], left: int = 0) -> str:
    """`` · hit rate 53% (70) · hit@3 45% (60) · 3.0 landed · precision 15% · branch-entry rate 39% · valid
    answers 100%`` over the questions walked so far (and an LLM's habits, counted: :class:`HabitCounts`; the misses
    by verdict and the flat search's hit@3 once judged, ``left`` still to judge: :func:`verdict_totals`)."""
    walked = [o for o in outcomes if o is not None]
    if not walked:
        return ""
    count = len(walked)
    hits, at_3 = sum(o.hit for o in walked), sum(o.hit_at_3 for o in walked)
    landed = sum(o.landed_count for o in walked)
    correct = sum(o.correct for o in walked)
    branches = sum(o.branch_entered for o in walked)
    answers = sum(o.answers for o in walked)
    valid = sum(o.valid_answers for o in walked)
    valid_rate = valid / answers if answers else 1.0
    precision = f"{correct / landed:.0%}" if landed else "—"
    cached = cached_words(sum(o.cached for o in walked), count, sum(o.chars_saved for o in walked) / count)
    habits = sum((o.habits for o in walked), HabitCounts()).words()
    return (f" · hit rate {hits / count:.0%} ({hits}) · hit@3 {at_3 / count:.0%} ({at_3}) · {landed / count:.1f} "
            f"landed · precision {precision} · branch-entry rate {branches / count:.0%} · valid answers "
            f"{valid_rate:.0%}" + (f" · {cached}" if cached else "") + (f" · {habits}" if habits else "")
            + verdict_totals(walked, left))


def verdict_totals(walked: list[QuestionOutcome], left: int = 0) -> str:
    """`` · misses by verdict: map hid it 3, navigator erred 2 · flat search hit@3 64% (26 of 41) against the walk's
    45%`` over the outcomes judged so far (nothing before any is); ``left``: outcomes still being judged."""
    judged = [o for o in walked if o.flat is not None]
    counts = {kind: n for kind in BlameKind if (n := sum(1 for o in walked if o.blame is not None
                                                          and o.blame.kind is kind))}
    said = ""
    if counts:
        said += " · misses by verdict: " + ", ".join(f"{kind.short} {n:,}" for kind, n in counts.items())
    if judged:
        flat = sum(1 for o in judged if o.flat is not None and o.flat <= 3)
        walk = sum(o.hit_at_3 for o in judged)
        said += (f" · flat search hit@3 {flat / len(judged):.0%} ({flat} of {len(judged)}) against the walk's "
                 f"{walk / len(judged):.0%}")
    if left:
        said += f" · judging: {counted(left, 'question')} left"
    return said


def how(outcome: QuestionOutcome) -> str:
    """What the main view says when it opens a question's walk."""
    how = "hit: it landed an expected node" if outcome.hit else f"missed: {miss_sentence(outcome)}"
    return f"{outcome.question.id}: {how} · ◎ marks what it expects · Escape returns to the evaluation"
