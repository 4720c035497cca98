"""What if the prompt were different: one LLM decision's request, editable, asked again beside the original.

The dialog holds an :class:`~explorer.navigators.what_if.EditedRequest`: the model and its sampling settings in
fields, the system and user messages in text areas, all as they were sent. ``ctrl+r`` sends the edited request
once, live, on a thread worker (the response cache is neither read nor written), and the two answers show side
by side, a row that differs in bold; ``ctrl+l`` lists the variants kept, each with its diff against the built-in
prompt (:mod:`.variants`). ``ctrl+f`` closes the dialog with the new answer's ids: the walk screen
forks the walk from them, as ``e`` does (the original walk is untouched). Escape closes it and cancels a request
in flight. The models' text is shown literally, never as markup.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static, TextArea

from core import CancellationToken, NavigatorRequest, RetrievalCancelled, Transcript, TreeNavigator

from ...navigators import NavigatorConfigError
from ...navigators.forcing import VARIANT_LABEL
from ...navigators.prompt_variants import (
    DEFAULT_VARIANT,
    PromptVariant,
    VariantError,
    keep_variant,
    kept_variants,
    variant_diff,
)
from ...navigators.what_if import (
    EDITABLE_KEYS,
    EditedRequest,
    WhatIfAnswer,
    WhatIfError,
    ask_again,
    side_by_side,
)
from ...safe_text import safe, visible
from ..widgets.editing import EditableField, EditableText
from .closing_once import ClosesOnce
from .variants import VariantsScreen

NavigatorFor = Callable[[str], TreeNavigator]
"""The navigator that asks a model id (called on the worker thread); ``NavigatorConfigError`` when none can."""

@dataclass
class WhatIfAnswered(Message):
    """The answer to ask ``ask_id`` (a stale one, from an ask since replaced, is dropped)."""

    ask_id: int
    answer: WhatIfAnswer | None
    error: str = ""


@dataclass(frozen=True)
class ForkFrom:
    """Fork the walk from the new answer: its ids (offered or not, in its order, each once) and the transcript
    of the request that produced them (the fork records the answer as taken from a what-if)."""

    selected: tuple[str, ...]
    transcript: Transcript


@dataclass(frozen=True)
class RewalkWith:
    """Re-walk from this decision with the prompt variant kept: it and every later decision asked live with it."""

    variant: PromptVariant


@dataclass(frozen=True)
class EvaluateWith:
    """Evaluate the prompt variant kept against the walk's own model id, over the corpus's question set."""

    variant: PromptVariant


FILES_OFF = "Keeping a prompt variant writes files: opening and saving files is off in this shared session."


class WhatIfScreen(ClosesOnce, ModalScreen[ForkFrom | RewalkWith | EvaluateWith | None]):
    """Edit ``request`` and ask it again with ``navigator_for``'s navigator; ``recorded`` is the original answer.

    ``prompts`` is the folder a variant is kept in (``None``: files are off, and keeping one is refused).
    Dismissed with :class:`ForkFrom` to fork from the new answer, :class:`RewalkWith` to re-walk with the
    variant kept, :class:`EvaluateWith` to evaluate it, or ``None``.
    """

    CSS_PATH = Path(__file__).with_name("what_if.tcss")
    BINDINGS = [
        Binding("ctrl+r", "ask", "Ask again", id="what_if.ask"),
        Binding("ctrl+f", "fork", "Fork from the new answer", id="what_if.fork"),
        Binding("ctrl+s", "keep", "Keep as a variant", id="what_if.keep"),
        Binding("ctrl+g", "rewalk", "Re-walk from here with this prompt", id="what_if.rewalk"),
        Binding("ctrl+t", "evaluate", "Evaluate with this prompt", id="what_if.evaluate"),
        Binding("ctrl+l", "variants", "The variants kept", id="what_if.variants"),
        Binding("escape", "close", "Close", id="what_if.close"),
    ]

    def __init__(self, request: EditedRequest, recorded: WhatIfAnswer, navigator_for: NavigatorFor, *,
                 where: str, prompts: Path | None = None) -> None:
        super().__init__()
        self.prompts = prompts
        self.variant: PromptVariant | None = None
        """The variant last kept from this dialog (``None``: none yet)."""
        self.request = request
        self.recorded = recorded
        self.navigator_for = navigator_for
        self.where = where
        """Which decision this is, in words (``walk 1 · the decision at billing``)."""
        self.answer: WhatIfAnswer | None = None
        self.asking: int | None = None
        """The id of the ask in flight (``None``: none)."""
        self._asks = itertools.count(1)
        """This dialog's ask ids: an answer carries its ask's, so a late one (Escape, asked again) is dropped."""
        self._token = CancellationToken()

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="what-if-dialog"):
            yield Label(safe(f"What if — {self.where}"), id="what-if-title")  # it names a corpus id
            yield Label(self._offered(), id="what-if-offered")
            with Horizontal(id="what-if-settings"):
                model = EditableField(request.base_model, id="what-if-model")
                model.border_title = "model"
                yield model
                for key, value in request.settings_text().items():
                    field = EditableField(value, placeholder="default", id=f"what-if-{key}", classes="setting")
                    field.border_title = key
                    yield field
                name = EditableField("", placeholder=DEFAULT_VARIANT, id="what-if-variant")
                name.border_title = "variant"
                yield name
            system = EditableText(request.system, id="what-if-system", soft_wrap=True)
            system.border_title = "system"
            yield system
            user = EditableText(request.user, id="what-if-user", soft_wrap=True)
            user.border_title = "user"
            yield user
            yield Label(Text("ctrl+r asks the edited request once, live (no cache) · ctrl+s keeps it as a variant · "
                             "ctrl+g re-walks from here with it · ctrl+t evaluates it · ctrl+l lists the variants "
                             "kept · Escape closes"),
                        id="what-if-status")
            with VerticalScroll(id="what-if-answers-scroll") as answers:
                answers.border_title = "answers"
                yield Static(self._answers(), id="what-if-answers")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#what-if-system", TextArea).focus()  # Tab goes on down the dialog, and round

    def _offered(self) -> Text:
        shown = Text()
        shown.append("Offered: ", style="bold")
        for number, view in enumerate(self.request.candidates, start=1):
            if number > 1:
                shown.append(" · ")
            shown.append(f"{number} ")
            shown.append_text(safe(view.id, "bold"))
            shown.append(" ")
            shown.append_text(safe(view.title, width=40))
        if not self.request.candidates:
            shown.append("nothing")
        shown.append(f"   ({self.request.remaining_visits} visits left)", style="dim")
        return shown

    # -- asking ------------------------------------------------------------------------------------------------

    def edited(self) -> EditedRequest:
        """The request as the fields now say; :class:`WhatIfError` for a setting that cannot be read."""
        settings = {key: self.query_one(f"#what-if-{key}", Input).value for key in EDITABLE_KEYS}
        return self.request.with_settings(self.query_one("#what-if-model", Input).value, settings).but(
            system=self.query_one("#what-if-system", TextArea).text,
            user=self.query_one("#what-if-user", TextArea).text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "ask":
            return self.asking is None
        if action == "fork":
            return self.answer is not None and self.answer.error is None and self.asking is None
        return True

    def action_ask(self) -> None:
        if self.asking is not None:
            return
        try:
            edited = self.edited()
        except WhatIfError as exc:
            self._status(str(exc), "error")
            return
        self.asking = next(self._asks)
        self._status(f"Asking {edited.model_id} …", "")
        self.refresh_bindings()
        self._ask(self.asking, edited, self._token)

    @work(thread=True, exclusive=True, group="what-if", exit_on_error=False)
    def _ask(self, ask_id: int, edited: EditedRequest, token: CancellationToken) -> None:
        try:
            navigator = self.navigator_for(edited.model_id)
            answer = ask_again(edited, navigator=navigator, cancellation=token)
        except RetrievalCancelled:
            return
        except (WhatIfError, NavigatorConfigError) as exc:
            self.post_message(WhatIfAnswered(ask_id, None, str(exc)))
            return
        except Exception as exc:  # a navigator's bug: said in the dialog, the app and the walk go on
            self.post_message(WhatIfAnswered(ask_id, None, f"the request failed: {type(exc).__name__}: {exc}"))
            return
        self.post_message(WhatIfAnswered(ask_id, answer))

    @on(WhatIfAnswered)
    def _answered(self, message: WhatIfAnswered) -> None:
        if message.ask_id != self.asking:
            return
        self.asking = None
        if message.answer is None:
            self._status(message.error, "error")
        else:
            self.answer = message.answer
            self.query_one("#what-if-answers", Static).update(self._answers())
            if message.answer.error is not None:
                self._status(f"The model's answer failed: {message.answer.error}", "error")
            else:
                self._status(f"Answered in {message.answer.seconds:.2f} s · ctrl+f forks the walk from it · "
                             "ctrl+r asks again", "")
        self.refresh_bindings()

    def _status(self, text: str, kind: str) -> None:
        label = self.query_one("#what-if-status", Label)
        label.update(Text(visible(text)))
        label.set_class(kind == "error", "error")

    # -- the two answers -----------------------------------------------------------------------------------------

    def _answers(self) -> Table:
        table = Table(expand=True, show_edge=False, pad_edge=False)
        table.add_column("", style="bold", no_wrap=True, width=11)
        table.add_column("recorded", ratio=1)
        table.add_column("asked again" if self.answer is not None else "asked again (ctrl+r)", ratio=1)
        for row in side_by_side(self.recorded, self.answer or _NOT_YET):
            style = "bold" if self.answer is not None and row.differs else ""
            multiline = row.label in ("rationale", "raw answer")
            table.add_row(row.label, safe(row.before, style, multiline=multiline),
                          safe(row.after if self.answer is not None else "", style, multiline=multiline))
        return table

    # -- leaving -------------------------------------------------------------------------------------------------

    def action_fork(self) -> None:
        if self.answer is not None and self.answer.error is None and self.asking is None:
            # a small model can name an id twice
            self.dismiss(ForkFrom(tuple(dict.fromkeys(self.answer.selected)), self._said(self.answer.transcript)))

    def _said(self, transcript: Transcript) -> Transcript:
        """``transcript`` saying the variant that asked it (``("variant", "prompt v2")``), when the variant kept here
        has the system message it was sent with."""
        variant = self.variant
        kept = variant is not None and variant.system() == dict(transcript).get("system")
        return (*transcript, (VARIANT_LABEL, f"prompt {variant.name}")) if kept and variant is not None else transcript

    def action_keep(self) -> PromptVariant | None:
        """Keep the edited request as the variant named in its field (``v2`` when blank); said in the status."""
        if self.prompts is None:
            self._status(FILES_OFF, "error")
            return None
        try:
            variant = keep_variant(self.edited(), self.query_one("#what-if-variant", Input).value, self.prompts)
        except (WhatIfError, VariantError) as exc:
            self._status(str(exc), "error")
            return None
        self.variant = variant
        self._status(f"Kept as {variant.name}: {variant.model_id} · ctrl+g re-walks from here with it", "")
        return variant

    def action_rewalk(self) -> None:
        variant = self.action_keep()
        if variant is not None:
            self._token.cancel()
            self.dismiss(RewalkWith(variant))

    def action_evaluate(self) -> None:
        variant = self.action_keep()
        if variant is not None:
            self._token.cancel()
            self.dismiss(EvaluateWith(variant))

    def action_variants(self) -> None:
        """The variants kept in the prompts folder, each with its unified diff against the built-in prompt."""
        if self.prompts is None:
            self._status(FILES_OFF, "error")
            return
        request = self.request
        offer = NavigatorRequest(request.query, request.model, request.current, request.candidates,
                                 request.remaining_visits)
        self.app.push_screen(VariantsScreen([(name, variant_diff(self.prompts, name, offer))
                                             for name in kept_variants(self.prompts)], self.prompts))

    def action_close(self) -> None:
        self._token.cancel()  # a request in flight is abandoned (its server stops generating)
        self.dismiss(None)


_NOT_YET = WhatIfAnswer((), (), (), "", "", None, 0.0, ())
"""The new column before anything was asked (shown blank)."""
