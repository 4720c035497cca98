"""The whole of one node: title, id, path, where it is defined, summary, metadata and content."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..corpora import Corpus
from ..safe_text import safe

HIDDEN_KEYS = {"hierarchyId", "hierarchyParentId", "reasoningTitle", "reasoningSummary"}


class NodeDetail(Static):
    """Shows untrusted text in full (escaped, never parsed), where labels elsewhere are cut short."""

    def show(self, corpus: Corpus, node_id: str | None) -> None:
        if node_id is None or node_id not in corpus.index:
            self.update(Text("Move the tree's cursor to a node to read all of it here.", style="dim"))
            return
        document = corpus.index[node_id]
        text = safe(corpus.title_of(node_id), "bold", multiline=True)
        text.append("\n")
        text.append("id ", style="dim")
        text.append_text(safe(node_id))
        text.append("   path ", style="dim")
        text.append_text(safe(" › ".join(corpus.index.path(node_id))))
        text.append("\n")
        text.append_text(safe(corpus.where(node_id), "dim"))
        text.append("\n\nSummary (what the navigator sees)\n", style="bold")
        text.append_text(safe(corpus.summary_of(node_id) or "(none)", multiline=True))
        extra = {k: v for k, v in document.metadata.items() if k not in HIDDEN_KEYS}
        if extra:
            text.append("\n\nMetadata\n", style="bold")
            for key, value in extra.items():
                text.append_text(safe(f"{key}: {value}"))
                text.append("\n")
        text.append("\n\nContent (never shown to the navigator)\n", style="bold")
        text.append_text(safe(document.content or "(none)", multiline=True))
        self.update(text)
