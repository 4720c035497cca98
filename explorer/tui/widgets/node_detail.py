"""The whole of one node: title, id, path, where it is defined, summary, metadata and content."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ...corpora import Corpus
from ...safe_text import safe, styled
from .long_text import PART, shown_part

HIDDEN_KEYS = {"hierarchyId", "hierarchyParentId", "reasoningTitle", "reasoningSummary"}


class NodeDetail(Static):
    """Shows untrusted text in full (escaped, never parsed), where labels elsewhere are cut short.

    Content is drawn :data:`long_text.PART` characters at a time (:meth:`more` adds the next part).
    """

    limit = PART
    shown: tuple[Corpus, str | None] | None = None

    def __init__(self, *, full_paths: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.full_paths = full_paths
        """Whether the node's place names the corpus's path on this machine (off in a shared session)."""

    def more(self) -> bool:
        """Draw the next part of the content shown; whether there was more."""
        if self.shown is None:
            return False
        corpus, node_id = self.shown
        if node_id is None or node_id not in corpus.index or len(corpus.index[node_id].content) <= self.limit:
            return False
        self.limit += PART
        self._draw(corpus, node_id)
        return True

    def show(self, corpus: Corpus, node_id: str | None) -> None:
        if self.shown != (corpus, node_id):
            self.limit = PART
        self.shown = (corpus, node_id)
        self._draw(corpus, node_id)

    def _draw(self, corpus: Corpus, node_id: str | None) -> None:
        if node_id is None or node_id not in corpus.index:
            self.update(styled("Move the tree's cursor to a node to read all of it here.", "dim"))
            return
        document = corpus.index[node_id]
        text = safe(corpus.title_of(node_id), "bold", multiline=True)
        text.append("\n")
        text.append("id ", style="dim")
        text.append_text(safe(node_id))
        text.append("   path ", style="dim")
        text.append_text(safe(" › ".join(corpus.index.path(node_id))))
        text.append("\n")
        text.append_text(safe(corpus.where(node_id, full_path=self.full_paths), "dim"))
        text.append("\n\nSummary (what the navigator sees)\n", style="bold")
        text.append_text(safe(corpus.summary_of(node_id) or "(none)", multiline=True))
        extra = {k: v for k, v in document.metadata.items() if k not in HIDDEN_KEYS}
        if extra:
            text.append("\n\nMetadata\n", style="bold")
            for key, value in extra.items():
                text.append_text(safe(f"{key}: {value}"))
                text.append("\n")
        text.append("\n\nContent (never shown to the navigator)\n", style="bold")
        text.append_text(shown_part(document.content, self.limit) if document.content else Text("(none)"))
        self.update(text)
