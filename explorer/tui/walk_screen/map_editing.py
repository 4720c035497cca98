"""``M``: fix the map where a walk was misled (issue 46 point 5). The node is the one the step panel's verdict names
(``the map hid it`` / ``the map misled``) when the cursor is at that verdict's step, else the one under the tree's
cursor. Its title and summary open in an editor (:mod:`..screens.map_editor`) with a summary suggested from what
lies beneath it (and, when the walk's navigator is an LLM's, a second one written by that model from the same
content, asked through the navigator: its settings, retries and response cache); what is kept goes into the map
variant (``--map FILE``, else ``maps/<corpus>.map.yaml`` beside the corpus: :mod:`explorer.corpora.map_variant`),
through the one output gate, never over the corpus. The screen then
walks with the map: the tree shows the new title and summary, the next walk (``r``) is walked on it, and ``E``
checks it against the original map."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from core import CancellationToken, TreeNavigator

from ...corpora import Corpus, CorpusError
from ...corpora.map_variant import apply_map, child_titles, keep_edit, map_path_for, subtree_text, suggested_summary
from ...navigators import NavigatorConfigError
from ...navigators.openai_compat import OpenAICompatibleNavigator
from ...navigators.summary_writer import WrittenSummary, summary_request, write_summary
from ..say import FILES_OFF
from ..screens.map_editor import MapEditorScreen, MapNode, ModelSuggestion
from .shown import Grounds, Part

WalksWith = Callable[[], tuple[str, TreeNavigator]]
"""The walk's model id and its navigator: the walk on screen's, else the next walk's (``NavigatorConfigError``
when it cannot be had)."""


class MapEditing(Part):
    """Open the map editor on the node at hand, keep its edit, and hand the corpus as the map now reads to
    ``use_corpus`` (the screen's: every part, pane and the tree read it from then on); ``cursor``: the node under the
    tree's cursor."""

    def __init__(self, grounds: Grounds, *, cursor: Callable[[], str | None],
                 use_corpus: Callable[[Corpus], None], walks_with: WalksWith) -> None:
        super().__init__(grounds)
        self.cursor = cursor
        self.use_corpus = use_corpus
        self.walks_with = walks_with

    def model_suggestion(self, node_id: str) -> ModelSuggestion | None:
        """The walk's LLM navigator asked for a summary of ``node_id``'s subtree (its title, its children's titles,
        its content: the request ``--summaries`` sends), or ``None`` when the walk's navigator is no LLM's."""
        try:
            model, navigator = self.walks_with()
        except NavigatorConfigError:
            return None
        wired = self.wiring.wire(navigator)
        if not isinstance(wired, OpenAICompatibleNavigator) or not wired.supports(model):
            return None
        corpus = self.corpus
        sent = summary_request(corpus.title_of(node_id), child_titles(corpus, node_id), subtree_text(corpus, node_id))

        def write(token: CancellationToken) -> WrittenSummary:
            return write_summary(wired, model, sent, token)

        return ModelSuggestion(model, sent, write)

    def map_file(self) -> Path:
        """Where the edits are kept: the map the corpus was opened with, else ``maps/<name>.map.yaml`` beside it."""
        return Path(self.corpus.map.path) if self.corpus.map is not None else map_path_for(self.corpus.path)

    def target(self) -> tuple[str, str] | None:
        """The node to edit and why: the verdict's node at its step (with its words), else the tree's cursor's."""
        walk, history = self.view.walk, self.view.history
        if walk is not None and history is not None and walk.judged is not None and walk.blamed is not None:
            at, lines = walk.judged
            if history.cursor == (len(history.events) if at is None else at) and walk.blamed in self.corpus.index:
                return walk.blamed, lines[0] if lines else ""
        node = self.cursor()
        return (node, "") if node is not None and node in self.corpus.index else None

    def ask(self) -> None:
        if not self.allow_files:
            self.say(FILES_OFF, severity="warning", timeout=4)
            return
        found = self.target()
        if found is None:
            self.say("M edits a node's title and summary: move the tree's cursor to a node (g finds one), or step to "
                     "a verdict that names one.", severity="warning", timeout=6)
            return
        node_id, why = found
        corpus = self.corpus
        node = MapNode(node_id, corpus.title_of(node_id), corpus.summary_of(node_id),
                       suggested_summary(corpus, node_id), why, self.map_file())

        def keep(title: str, summary: str) -> str | None:
            try:
                variant = keep_edit(self.corpus, node.map_file, node_id, title, summary, self.wiring.ledger)
                mapped = apply_map(self.corpus, variant)
            except CorpusError as exc:
                return str(exc)
            self.wiring.ledger.read("the map variant", node.map_file)  # the screen's input now: no save replaces it
            self.use_corpus(mapped)
            self.say(f"Kept in {node.map_file}: {node_id}'s title and summary. The next walk (r restarts) walks with "
                     "this map; E checks it against the original map.", timeout=8)
            return None

        self.stage.app.push_screen(MapEditorScreen(node, keep, self.model_suggestion(node_id)))
