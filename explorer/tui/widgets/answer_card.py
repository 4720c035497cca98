"""Presenting mode's answer card: the landed nodes, each with its stop reason, path and content, all in view.

The card is laid out for the rows it has: every landed node gets its reason and title on one line and its path
on the next, and the rows left are shared out for content, cut with an ellipsis, so that the answer is on
screen without scrolling at 80×24 as at 200×60 (past what fits, the rest are counted).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.widget import Widget

from ...corpora import Corpus
from ...safe_text import safe, styled, visible
from ...walks.describe import PATH_SEPARATOR
from ...walks.state import WalkState


@dataclass(frozen=True)
class Answer:
    """One landed node as the card shows it (corpus text, not yet escaped)."""

    node: str
    title: str
    reason: str
    path: tuple[str, ...]
    """Titles, root first."""
    content: str


class AnswerCard(Widget):
    """The answer of a walk that ended: :meth:`show` takes the state, :meth:`render` fits it to the card's size."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "answer--heading",
        "answer--reason",
        "answer--title",
        "answer--path",
        "answer--content",
        "answer--dim",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.answers: tuple[Answer, ...] = ()
        self.heading = ""

    def show(self, state: WalkState, corpus: Corpus) -> None:
        """The landed nodes of ``state``, in the order they landed."""
        def title(node: str) -> str:
            return corpus.title_of(node) if node in corpus.index else node

        answers = []
        for node, record in state.landed.items():
            path = [title(n) for n in record.path]
            if not record.path or record.path.last != node:
                path.append(title(node))
            content = corpus.index[node].content if node in corpus.index else ""
            answers.append(Answer(node, title(node), state.reason_of(record), tuple(path), content))
        self.answers = tuple(answers)
        count = len(self.answers)
        if count:
            self.heading = f"The answer: {count:,} landed" if count > 1 else "The answer"
        else:
            self.heading = "Nothing landed"
        self.refresh()

    def render(self) -> RenderableType:
        style = self.get_component_rich_style
        width, height = self.content_size.width or 80, self.content_size.height or 24
        lines: list[Text] = [Text(self.heading, style=style("answer--heading"))]
        room = height - 1
        answers = self.answers
        if 2 * len(answers) <= room:  # every answer: its reason and title, its path, and a share of the rest
            shown = len(answers)
            content_rows = (room - 2 * shown) // shown if shown else 0
        else:  # as many as fit, and a line that counts the others
            shown, content_rows = max(0, (room - 1) // 2), 0
        for answer in answers[:shown]:
            head = styled("■ ", style("answer--reason"))
            head.append(answer.reason, style=style("answer--reason"))
            head.append("  ")
            head.append_text(safe(answer.title, style("answer--title"), width=200))
            lines.append(head)
            lines.append(safe(PATH_SEPARATOR.join(answer.path), style("answer--path"), width=400))
            if content_rows > 0:
                lines.extend(self._content(answer.content, width, content_rows))
        if shown < len(answers):
            lines.append(styled(f"… and {len(answers) - shown:,} more landed", style("answer--dim")))
        text = Text("\n").join(line for line in lines)
        text.no_wrap, text.overflow = True, "ellipsis"
        return text

    def _content(self, content: str, width: int, rows: int) -> list[Text]:
        style = self.get_component_rich_style("answer--content")
        body = " ".join(visible(content[: width * rows * 2], multiline=True).split())
        if not body:
            return [styled("  (no content)", self.get_component_rich_style("answer--dim"))]
        wrapped = Text(body, style=style).wrap(self.app.console, max(10, width - 2))
        kept = [Text("  ") + line for line in wrapped[:rows]]
        if len(wrapped) > rows and kept:
            last = kept[-1]
            last.truncate(max(1, width - 1))
            last.append("…")
        return kept

    @property
    def words(self) -> str:
        """What the card says as plain text, as it fits its size now (what a test reads)."""
        return str(self.render())
