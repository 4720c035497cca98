"""Presenting mode's answer card: the landed nodes ranked, each with what put it there, its path and content.

The ranking is :func:`explorer.walks.ranking.rank_landed`'s (the Results tab and ``walk`` show the same): the
best answer first, starred and set apart, the others in the navigator's order, and the stand-ins (landed only
because the visits or the depth ran out below them) last, under a line that says they are not answers, with no
content. The card is laid out for the rows it has: every landed node gets its line (its title first, then what
ranked it, its id and stop reason, cut from the end) and its path on the next, and the rows left are shared out
for the answers' content, cut with an ellipsis. When not every node has room for its path, the best keeps its
path and content and the others take a row each; past what fits, the rest are counted.

When the best answer's content does not fit its rows, it is shown from the sentence that best matches the query
(:func:`explorer.walks.answer_sentence.lead_sentence`), set in bold, after ``…``: the room reads "banks usually
take 5 to 10 business days", not a first sentence cut before it. The best answer takes the rows that sentence
needs, the others share what is left.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.widget import Widget

from core import WalkEvent, WalkStarted

from ...corpora import Corpus
from ...safe_text import safe, styled, visible
from ...walks.answer_sentence import SCORED_CHARACTERS, Lead, lead_sentence
from ...walks.describe import PATH_SEPARATOR
from ...walks.ranking import rank_landed
from ...walks.state import WalkState


@dataclass(frozen=True)
class Answer:
    """One landed node as the card shows it (corpus text, not yet escaped), ranked (:mod:`explorer.walks.ranking`)."""

    node: str
    title: str
    reason: str
    path: tuple[str, ...]
    """Titles, root first."""
    content: str
    place: int | None = None
    """1: the best answer; ``None``: a stand-in."""
    why: str = ""
    stand_in: str | None = None
    lead: Lead | None = None
    """The best answer's sentence that best matches the query, in its content as shown (:func:`shown_content`)."""

    @property
    def best(self) -> bool:
        return self.place == 1


STAND_INS = "Stand-ins, not answers: the walk never got below them"
"""The line before the stand-ins."""


class AnswerCard(Widget):
    """The answer of a walk that ended: :meth:`show` takes the state, :meth:`render` fits it to the card's size.

    The best answer comes first, marked ``★``, with the others after a line of their own in the navigator's order;
    the stand-ins (``◌``: landed because the budget or the depth ran out) come last, under a line that says they
    are not answers. Each node's line puts its title first, so that a narrow card cuts its id, stop reason and
    score before its title.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "answer--heading",
        "answer--best",
        "answer--reason",
        "answer--title",
        "answer--path",
        "answer--content",
        "answer--lead",
        "answer--dim",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.answers: tuple[Answer, ...] = ()
        self.heading = ""

    def show(self, state: WalkState, corpus: Corpus, events: Sequence[WalkEvent], forced: Collection[int] = ()) -> None:
        """The landed nodes of ``state`` (as of the walk's ``events``, ``forced`` numbering its forced answers),
        ranked (:func:`~explorer.walks.ranking.rank_landed`)."""
        def title(node: str) -> str:
            return corpus.title_of(node) if node in corpus.index else node

        asked = next((e.query for e in events if isinstance(e, WalkStarted)), "")

        answers = []
        for ranked in rank_landed(state, events, forced):
            node, record = ranked.node, ranked.record
            path = [title(n) for n in record.path]
            if not record.path or record.path.last != node:
                path.append(title(node))
            content = corpus.index[node].content if node in corpus.index else ""
            lead = lead_sentence(shown_content(content), asked) if ranked.place == 1 else None
            answers.append(Answer(node, title(node), state.reason_of(record), tuple(path), content, ranked.place,
                                  ranked.reasons, ranked.stand_in, lead))
        self.answers = tuple(answers)
        self.heading = answer_heading(self.answers)
        self.refresh()

    def render(self) -> RenderableType:
        style = self.get_component_rich_style
        width, height = self.content_size.width or 80, self.content_size.height or 24
        answers = self.answers
        lines: list[Text] = [Text(self.heading, style=style("answer--heading"))]
        shown, compact = len(answers), False
        if _rows(answers, shown, compact=False) > height:  # not all with their paths: the others a row each
            compact = True
            while shown and _rows(answers, shown, compact=True) > height:
                shown -= 1
        room = height - _rows(answers, shown, compact)
        real = sum(1 for a in answers[:shown] if a.stand_in is None)  # a stand-in's content is no answer: none shown
        content_rows = (room if compact else room // real) if real else 0
        best_rows = content_rows
        if real > 1 and not compact and answers[0].best:  # the best's matching sentence first, the others after
            needed = self._lead_rows(answers[0], width)
            best_rows = max(content_rows, min(needed, room - (real - 1)))
            content_rows = (room - best_rows) // (real - 1)
        for number, answer in enumerate(answers[:shown]):
            before = answers[number - 1] if number else None
            if before is not None and before.stand_in is None and answer.stand_in is not None:
                lines.append(styled(STAND_INS,
                                    style("answer--dim")))
            elif before is not None and before.best and answer.stand_in is None:
                lines.append(styled("Also landed, in the navigator's order", style("answer--dim")))
            lines.append(self._head(answer))
            if compact and number:
                continue
            lines.append(safe(PATH_SEPARATOR.join(answer.path), style("answer--path"), width=400))
            rows = best_rows if answer.best else content_rows
            if rows > 0 and answer.stand_in is None:
                lines.extend(self._content(answer, width, rows))
        if shown < len(answers):
            left = answers[shown:]
            stand_ins = sum(1 for a in left if a.stand_in is not None)
            some = f" ({stand_ins:,} of them stand-ins)" if 1 < stand_ins < len(left) else (
                " (a stand-in)" if stand_ins == 1 and len(left) == 1 else (
                    " (stand-ins)" if stand_ins == len(left) else (" (1 a stand-in)" if stand_ins == 1 else "")))
            lines.append(styled(f"… and {len(left):,} more landed{some}", style("answer--dim")))
        for line in lines:  # each row cut to the card's width, the end first: a title before its id and reason
            cut_at_a_word(line, width)
        text = Text("\n").join(line for line in lines)
        text.no_wrap, text.overflow = True, "ellipsis"
        return text

    def _head(self, answer: Answer) -> Text:
        """``★ 1. Refund delivery  score 2.76 · named 1st of 3 · bm25 · refund-delivery · leaf``: the title first, then
        what ranked it, the id and the stop reason last (the first cut on a narrow card)."""
        style = self.get_component_rich_style
        if answer.stand_in is not None:
            head = styled("◌ ", style("answer--dim"))
        elif answer.best:
            head = styled(f"★ {answer.place}. ", style("answer--best"))
        else:
            head = styled(f"■ {answer.place}. ", style("answer--reason"))
        head.append_text(safe(answer.title, style("answer--best" if answer.best else "answer--title"), width=200))
        head.append("  ")
        tail = [answer.stand_in] if answer.stand_in is not None else []
        tail += [answer.why, answer.node, answer.reason]
        head.append_text(safe(" · ".join(t for t in tail if t), style("answer--dim"), width=300))
        return head

    def _lead_rows(self, answer: Answer, width: int) -> int:
        """The rows ``answer``'s sentence that best matches the query takes, after ``…`` (0: its first sentence
        matches best, or it has none)."""
        lead = answer.lead
        if lead is None or lead.number == 1:
            return 0
        return len(Text(f"… {lead.sentence}").wrap(self.app.console, max(10, width - 2)))

    def _content(self, answer: Answer, width: int, rows: int) -> list[Text]:
        """``answer``'s content in at most ``rows`` rows, indented; the best answer's from its sentence that best
        matches the query when the whole does not fit (that sentence in bold, after ``…``)."""
        style = self.get_component_rich_style("answer--content")
        whole = shown_content(answer.content)
        if not whole:
            return [styled("  (no content)", self.get_component_rich_style("answer--dim"))]
        room = max(10, width - 2)
        body = Text(whole[: width * rows * 2], style=style)
        lead = answer.lead
        if lead is not None and lead.number > 1 and len(body.wrap(self.app.console, room)) > rows:
            body = Text("… ", style=style)
            body.append(lead.sentence, style=self.get_component_rich_style("answer--lead"))
            body.append(whole[lead.start + len(lead.sentence): lead.start + width * rows * 2], style=style)
        wrapped = body.wrap(self.app.console, room)
        for line in wrapped:
            line.rstrip()
        kept = [Text("  ") + line for line in wrapped[:rows]]
        if len(wrapped) > rows and kept:
            last = kept[-1]
            if last.cell_len < width:
                last.append("…")
            else:
                cut_at_a_word(last, width, always=True)
        return kept

    @property
    def words(self) -> str:
        """What the card says as plain text, as it fits its size now (what a test reads)."""
        return str(self.render())


def shown_content(content: str) -> str:
    """A node's content as the card shows it: control characters made visible, all space one space, and no more
    of it than a card or its leading sentence can use (a section of a megabyte is read by its start)."""
    return " ".join(visible(content[: 2 * SCORED_CHARACTERS], multiline=True).split())


def _rows(answers: Sequence[Answer], shown: int, compact: bool) -> int:
    """The rows the first ``shown`` of ``answers`` take, with no content: the heading, each node's line and its
    path (``compact``: the best's only), the dividers, and the line that counts those not shown."""
    paths = (1 if shown else 0) if compact else shown
    return 1 + shown + paths + _dividers(answers[:shown]) + (shown < len(answers))


def _dividers(answers: Sequence[Answer]) -> int:
    """The lines between the best and the others, and before the stand-ins, that ``answers`` take."""
    others = any(a.stand_in is None and not a.best for a in answers) and bool(answers) and answers[0].best
    return int(others) + int(any(a.stand_in is None for a in answers) and any(a.stand_in for a in answers))


def answer_heading(answers: Sequence[Answer]) -> str:
    """``The answer: Refund delivery``, ``The answer: Refund delivery, and 2 more`` (with ``· 1 stand-in``), or
    ``No answer reached: 2 stand-ins`` and ``Nothing landed``."""
    real = [a for a in answers if a.stand_in is None]
    stand_ins = len(answers) - len(real)
    also = f" · {stand_ins:,} stand-in{'s' if stand_ins != 1 else ''}" if stand_ins else ""
    if real:
        more = f", and {len(real) - 1:,} more" if len(real) > 1 else ""
        return f"The answer: {visible(real[0].title)}{more}{also}"
    if stand_ins:
        return f"No answer reached{also.replace(' ·', ':')}"
    return "Nothing landed"


def cut_at_a_word(line: Text, width: int, *, always: bool = False) -> None:
    """``line`` cut to ``width`` cells after its last whole word, with ``…`` (``always``: even when it fits, as
    the last row of a text that goes on); a room reads whole words, never ``cosine s…``. A line with no space
    to cut at is cut at the width."""
    if line.cell_len <= width and not always:
        return
    plain = line.plain
    space = plain.rfind(" ", 0, max(1, width - 1))
    while space > 0 and plain[space - 1] in " ·›,;:":  # not after a separator left hanging
        space -= 1
    if space <= 0 or not plain[:space].strip():
        line.truncate(width, overflow="ellipsis")
        return
    line.truncate(space)
    line.rstrip()
    line.append("…")
    if line.cell_len > width:  # wide characters: the cells, not the characters, decide
        line.truncate(width, overflow="ellipsis")
