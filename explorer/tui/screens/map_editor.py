"""``M``: one node's title and summary, edited as a map variant (the map a navigator is shown, changed in an overlay
file beside the corpus; the corpus file is never written: :mod:`explorer.corpora.map_variant`).

The dialog shows the node's title and summary as the walk saw them, why it was opened (the verdict that named the
node, when it was opened from one), and a summary suggested from what lies beneath the node (extractive, offline);
``ctrl+u`` takes the suggestion into the summary field. When the walk's navigator is an LLM's, that model is asked
for a second suggestion from the same content (:class:`ModelSuggestion`, the request of
:func:`~explorer.navigators.summary_writer.write_summary`, through the navigator's retries and response cache), on a
worker: the dialog stays live and says ``asking MODEL…``, ``Escape`` still closes it (the request is abandoned), a
failure is one line and the extractive suggestion stays; ``ctrl+l`` takes the model's, ``ctrl+r`` shows its request
and its answer as the model gave it (and back). ``Enter`` or ``ctrl+s`` keeps the edit (``keep`` writes it
through the one output gate and says what went wrong in one line, shown here: the dialog stays, nothing is lost);
``Escape`` closes it with nothing kept. Every text from the corpus or the verdict is shown literally (rich ``Text``,
control characters made visible), never as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from core import CancellationToken, RetrievalCancelled

from ...navigators.llm.errors import NavigatorHTTPError
from ...navigators.llm.prompt import Messages
from ...navigators.summary_writer import WrittenSummary
from ...safe_text import one_line, safe, visible
from ..widgets.editing import EditableField, EditableText
from .closing_once import ClosesOnce

HINT = "Enter or ctrl+s keeps it in the map variant · ctrl+u takes the suggestion · Escape closes, nothing kept"
MODEL_HINT = ("Enter or ctrl+s keeps it in the map variant · ctrl+u takes the suggestion, ctrl+l the model's · "
              "ctrl+r its request · Escape closes, nothing kept")


@dataclass(frozen=True)
class ModelSuggestion:
    """The walk's LLM navigator asked for a suggestion: its ``model`` id, the request ``sent`` (system, then user),
    and ``write``, called on a worker thread, which sends it and returns the summary written (or raises
    :class:`NavigatorHTTPError` in one line)."""

    model: str
    sent: Messages
    write: Callable[[CancellationToken], WrittenSummary]


@dataclass
class ModelWrote(Message):
    """What the model wrote (or the one line that says why it wrote nothing)."""

    written: WrittenSummary | None
    error: str = ""


@dataclass(frozen=True)
class MapNode:
    """What the dialog edits: the node's id, its title and summary as the walk saw them, the suggested summary, why
    it was opened (a verdict's words, or empty) and the file the edit is kept in."""

    node_id: str
    title: str
    summary: str
    suggestion: str
    why: str
    map_file: Path


class MapEditorScreen(ClosesOnce, ModalScreen[bool]):
    """The node's title and summary in two fields; ``keep(title, summary)`` keeps them (``None``) or says why not
    (one line, shown under the fields). Dismissed with ``True`` once kept, ``False`` when closed."""

    CSS_PATH = Path(__file__).with_name("map_editor.tcss")
    BINDINGS = [
        Binding("escape", "close", "Close", id="map.close"),
        Binding("enter", "keep", "Keep", priority=True, id="map.keep"),
        Binding("ctrl+s", "keep", "Keep", priority=True, id="map.keep_s"),
        Binding("ctrl+u", "suggest", "Use the suggestion", priority=True, id="map.suggest"),
        Binding("ctrl+l", "take_written", "Use the model's suggestion", priority=True, id="map.take_written"),
        Binding("ctrl+r", "request", "The model's request", priority=True, id="map.request"),
    ]

    def __init__(self, node: MapNode, keep: Callable[[str, str], str | None],
                 model: ModelSuggestion | None = None) -> None:
        super().__init__()
        self.node = node
        self.keep = keep
        self.model = model
        self.problem: str | None = None
        """The last line that refused a keep (``None``: none)."""
        self.written: WrittenSummary | None = None
        """What the model wrote, once it has (``None``: not yet, never asked, or it failed)."""
        self.model_error: str | None = None
        """The one line that says why the model wrote nothing (``None``: no failure)."""
        self._token = CancellationToken()

    def compose(self) -> ComposeResult:
        node = self.node
        with Vertical(id="map-dialog"):
            heading = Text("Map: ", style="bold")
            heading.append_text(safe(node.title, "bold", width=60))
            heading.append_text(safe(f" ({node.node_id}) · kept in {node.map_file}", width=200))
            yield Label(heading, id="map-heading")
            if node.why:
                why = Text("Why: ", style="bold")
                why.append_text(safe(node.why, width=600))
                yield Static(why, id="map-why")
            yield Label("Title", classes="map-label")
            yield EditableField(node.title, id="map-title")
            yield Label("Summary (what the navigator is shown of everything beneath)", classes="map-label")
            yield EditableText(node.summary, id="map-summary", soft_wrap=True, show_line_numbers=False)
            if self.model is None:
                yield Label("Suggested, from the content beneath (offline) · ctrl+u takes it", classes="map-label")
            else:
                yield Label("Suggested, from the content beneath", classes="map-label")
            with VerticalScroll(id="map-suggestion-scroll"):
                if self.model is not None:  # first: what is under way, then what it wrote, is seen in a small window
                    yield Label(safe(f"By {self.model.model} · ctrl+l takes it", width=200), classes="map-label",
                                id="map-written-label")
                    yield Static(safe(f"asking {self.model.model}…", width=200), id="map-written")
                    yield Static(self._request_text(), id="map-request")
                    yield Label("Extractive, offline · ctrl+u takes it", classes="map-label", id="map-suggestion-label")
                yield Static(safe(node.suggestion or "(nothing beneath says anything to suggest from)",
                                  width=10_000), id="map-suggestion")
            yield Label("", id="map-problem")
            yield Label(MODEL_HINT if self.model is not None else HINT, id="map-hint")

    def on_mount(self) -> None:
        self.query_one("#map-summary", EditableText).focus()
        if self.model is not None:
            self._ask(self.model, self._token)

    @work(thread=True, exclusive=True, group="map-suggestion", exit_on_error=False)
    def _ask(self, model: ModelSuggestion, token: CancellationToken) -> None:
        try:
            written = model.write(token)
        except RetrievalCancelled:
            return
        except NavigatorHTTPError as exc:
            self.post_message(ModelWrote(None, one_line(str(exc))))
            return
        except Exception as exc:  # a navigator's bug: said in the dialog, the extractive suggestion stays
            self.post_message(ModelWrote(None, one_line(f"the request failed: {type(exc).__name__}: {exc}")))
            return
        self.post_message(ModelWrote(written))

    @on(ModelWrote)
    def _wrote(self, message: ModelWrote) -> None:
        if self.model is None or not self.is_attached:
            return
        written = self.query_one("#map-written", Static)
        if message.written is None:
            self.model_error = message.error
            said = f"{self.model.model} wrote no suggestion: {message.error.rstrip('.')}. The extractive one "
            said += "stays."
            written.update(safe(said, "bold red", width=400))
        else:
            self.written = message.written
            whence = "from the response cache" if message.written.cached else "asked now"
            self.query_one("#map-written-label", Label).update(safe(
                f"By {self.model.model} ({whence}) · ctrl+l takes it · ctrl+r shows its request", width=200))
            written.update(safe(message.written.summary or "(the model's answer holds no summary)", width=10_000))
        self.query_one("#map-request", Static).update(self._request_text())

    def _request_text(self) -> Text:
        """The request the model is sent and its answer as given, literally (``ctrl+r`` shows it)."""
        if self.model is None:
            return Text()
        text = Text(f"The request to {self.model.model}:\n", style="bold")
        for role, content in self.model.sent:
            text.append(f"{role}:\n", style="bold")
            text.append_text(safe(content, multiline=True))
            text.append("\n\n")
        text.append("Its answer, as the model gave it:\n", style="bold")
        if self.written is not None:
            text.append_text(safe(self.written.answer, multiline=True))
        elif self.model_error is not None:
            text.append_text(safe(f"(none: {self.model_error})", width=400))
        else:
            text.append("(not yet)")
        return text

    @property
    def title_text(self) -> str:
        return self.query_one("#map-title", EditableField).value

    @property
    def summary_text(self) -> str:
        return self.query_one("#map-summary", EditableText).text

    def action_suggest(self) -> None:
        self._take(self.node.suggestion)

    def action_take_written(self) -> None:
        self._take(self.written.summary if self.written is not None else "")

    def _take(self, suggestion: str) -> None:
        if suggestion:
            field = self.query_one("#map-summary", EditableText)
            field.text = suggestion
            field.focus()

    def action_request(self) -> None:
        """Show the model's request and its answer in place of the suggestions, or the suggestions again."""
        if self.model is not None:
            self.set_class(not self.has_class("-request"), "-request")

    def action_keep(self) -> None:
        if not self.on_top:
            return
        summary = " ".join(self.summary_text.split())  # one paragraph: a summary is what a navigator reads in a line
        problem = self.keep(self.title_text.strip(), summary)
        if problem is not None:
            self.problem = problem
            self.query_one("#map-problem", Label).update(Text(visible(problem), style="bold red"))
            return
        self._token.cancel()
        self.dismiss(True)

    def action_close(self) -> None:
        self._token.cancel()  # a request in flight is abandoned
        self.dismiss(False)
