"""What if the prompt were different: one LLM decision's request, edited and asked again, beside the original.

The UI-free half of the prompt what-if (the screen shows it; nothing here imports one):

1. :func:`request_for` turns a recorded LLM decision — the walk's model id, the offer it answered
   (``core.CandidatesOffered``) and its transcript — into an editable :class:`EditedRequest`: the system and
   user messages exactly as sent, the sampling settings (temperature, seed, top_p, max_tokens), structured
   output, and the model.
2. The screen lets a person edit it (``request.but(system=..., temperature=0.7)``).
3. :func:`ask_again` sends the edited request once, live: the response cache is neither read nor written, and
   the transcript says so. It returns a :class:`WhatIfAnswer`.
4. :func:`recorded_answer` gives the original decision in the same form, so the two show side by side
   (:func:`side_by_side`): the ids chosen (offered or not), the rationale, the raw text, the tokens.

Forking the walk from the new answer is the screen's: its ``selected`` ids are a forced decision at that offer
(``explorer.navigators.forcing.Force``), as ``e`` does.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from core import (
    CancellationToken,
    CandidatesOffered,
    NavigatorChose,
    NavigatorFailed,
    NavigatorRequest,
    NodeView,
    RetrievalCancelled,
    Transcript,
    TreeNavigator,
)

from .errors import NavigatorConfigError
from .llm.errors import NavigatorHTTPError
from .llm.options import PROMPT_KEYS, OptionError, StructuredOutput, join_options, split_options, with_options
from .openai_compat import OpenAICompatibleNavigator
from .resolver import resolve_navigator

EDITABLE_KEYS: Final = ("temperature", "seed", "top_p", "max_tokens", "schema")


class WhatIfError(ValueError):
    """A decision that cannot be asked again: not an LLM navigator's, or no offer to answer."""


@dataclass(frozen=True, slots=True)
class EditedRequest:
    """One LLM decision's request, editable: the messages, the sampling settings, structured output, the model.

    ``model`` is the navigator's model id without the sampling options (they are the fields here);
    ``temperature``/``seed``/``top_p``/``max_tokens`` ``None`` mean the default (temperature 0, no seed, the
    server's top_p, enough tokens for the answer asked for). ``query``, ``current``, ``candidates`` and
    ``remaining_visits`` are the offer answered (the schema's ids and ``maxItems`` come from it).
    """

    model: str
    system: str
    user: str
    query: str
    current: NodeView | None
    candidates: tuple[NodeView, ...]
    remaining_visits: int
    temperature: float | None = None
    seed: int | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    structured_output: StructuredOutput = StructuredOutput.AUTO

    def but(self, **changes: Any) -> EditedRequest:
        """A copy with ``changes`` (``system=``, ``user=``, ``temperature=``...)."""
        return replace(self, **changes)

    @property
    def base_model(self) -> str:
        """The model as a person edits it: without the sampling settings (their own fields) and without prompt
        files (the messages are the request's own text)."""
        split = split_options(self.model)
        return join_options(split.base, [(k, v) for k, v in split.written if k not in PROMPT_KEYS])

    def settings_text(self) -> dict[str, str]:
        """The sampling settings as text, one per :data:`EDITABLE_KEYS` (``""``: the default)."""
        numbers = {"temperature": self.temperature, "seed": self.seed, "top_p": self.top_p,
                   "max_tokens": self.max_tokens}
        text = {key: "" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
                for key, value in numbers.items()}
        text["schema"] = "" if self.structured_output is StructuredOutput.AUTO else self.structured_output.value
        return text

    def with_settings(self, model: str, settings: Mapping[str, str]) -> EditedRequest:
        """This request for ``model`` with the sampling ``settings`` as a person typed them (a blank one: the
        default). :class:`WhatIfError` says which setting cannot be read and what to write, as the model id's
        own options do (``temperature=3: temperature must be a number from 0 to 2, e.g. temperature=0.7``)."""
        typed = {key: value.strip() for key, value in settings.items() if value.strip()}
        unknown = sorted(set(typed) - set(EDITABLE_KEYS))
        if unknown:
            raise WhatIfError(f"{unknown[0]}: not a setting of a request; these are {', '.join(EDITABLE_KEYS)}")
        if not model.strip():
            raise WhatIfError("name the model to ask, e.g. local:smollm2")
        try:
            split = split_options(with_options(model.strip(), typed))
        except OptionError as exc:
            raise WhatIfError(str(exc)) from None
        options = split.options
        kept = [(k, v) for k, v in split.written if k not in EDITABLE_KEYS]
        return self.but(model=join_options(split.base, kept), temperature=options.temperature, seed=options.seed,
                        top_p=options.top_p, max_tokens=options.max_tokens, structured_output=options.schema)

    @property
    def model_id(self) -> str:
        """The model id this request is sent with: the model and its sampling options, in the id's syntax."""
        written: list[tuple[str, str]] = []
        for key, value in (("temperature", self.temperature), ("seed", self.seed), ("top_p", self.top_p),
                           ("max_tokens", self.max_tokens)):
            if value is not None:
                written.append((key, f"{value:g}" if isinstance(value, float) else str(value)))
        if self.structured_output is not StructuredOutput.AUTO:
            written.append(("schema", self.structured_output.value))
        split = split_options(self.model)
        written += [(k, v) for k, v in split.written if k not in EDITABLE_KEYS and k not in ("system", "prompt")]
        return join_options(split.base, written)


@dataclass(frozen=True, slots=True)
class WhatIfAnswer:
    """An answer to a decision's request, in the form shown side by side.

    ``selected``: the ids the model gave, in its order; ``offered``/``hallucinated``: those that were offered
    (first of each kept) and those that were not. ``error``: a failure's one line (then nothing was chosen).
    ``usage``: the token counts the server reported. ``live``: whether this answer came from a call just made
    (``False`` for the recorded original).
    """

    selected: tuple[str, ...]
    offered: tuple[str, ...]
    hallucinated: tuple[str, ...]
    rationale: str
    raw: str
    usage: Mapping[str, Any] | None
    seconds: float
    transcript: Transcript
    error: str | None = None
    live: bool = True

    @property
    def prompt_tokens(self) -> int | None:
        value = (self.usage or {}).get("prompt_tokens")
        return value if isinstance(value, int) else None

    @property
    def completion_tokens(self) -> int | None:
        value = (self.usage or {}).get("completion_tokens")
        return value if isinstance(value, int) else None


def _pairs(transcript: Transcript | None) -> dict[str, str]:
    found: dict[str, str] = {}
    for label, text in transcript or ():
        found.setdefault(label, text)
    return found


def _split(offered: tuple[NodeView, ...], selected: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    ids = {view.id for view in offered}
    valid = tuple(dict.fromkeys(i for i in selected if i in ids))
    invented = tuple(dict.fromkeys(i for i in selected if i not in ids))
    return valid, invented


def _navigator(model: str, navigator: TreeNavigator | None) -> OpenAICompatibleNavigator:
    if navigator is None:
        try:
            navigator = resolve_navigator(model, headless=True)
        except NavigatorConfigError as exc:
            raise WhatIfError(str(exc)) from None
    if not isinstance(navigator, OpenAICompatibleNavigator) or not navigator.supports(model):
        raise WhatIfError(f"navigator {model!r} is no LLM's: a prompt what-if asks an LLM (openai:, ollama:, "
                          "vllm:, local:) again")
    return navigator


def request_for(model: str, query: str, offer: CandidatesOffered, transcript: Transcript | None = None,
                *, navigator: TreeNavigator | None = None) -> EditedRequest:
    """The editable request of the decision that answered ``offer`` in a walk of ``model`` on ``query``.

    The messages are the transcript's (exactly as sent); a decision without them (forced, replayed, or a
    walk from an old trace) gets the messages the navigator would send now. :class:`WhatIfError` when
    ``model`` is not an LLM navigator's or its id cannot be read.
    """
    llm = _navigator(model, navigator)
    try:
        split = split_options(model)
    except OptionError as exc:
        raise WhatIfError(str(exc)) from None
    said = _pairs(transcript)
    request = NavigatorRequest(query, model, offer.current, offer.candidates, offer.remaining_visits,
                               CancellationToken.none())
    if "system" in said and "user" in said:
        system, user = said["system"], said["user"]
    else:
        try:
            sent = dict(llm.prompt(request))
        except NavigatorHTTPError as exc:
            raise WhatIfError(str(exc)) from None
        system, user = sent["system"], sent["user"]
    options = split.options
    kept = [(k, v) for k, v in split.written if k not in EDITABLE_KEYS]
    return EditedRequest(
        model=join_options(split.base, kept), system=system, user=user, query=query, current=offer.current,
        candidates=offer.candidates, remaining_visits=offer.remaining_visits, temperature=options.temperature,
        seed=options.seed, top_p=options.top_p, max_tokens=options.max_tokens, structured_output=options.schema,
    )


def ask_again(edited: EditedRequest, *, navigator: TreeNavigator | None = None,
              cancellation: CancellationToken | None = None) -> WhatIfAnswer:
    """Send ``edited`` once, live (the response cache is neither read nor written), and read the answer.

    A failure (the server, an answer that does not parse) is an answer with ``error`` set and its transcript,
    not an exception; a cancel raises :class:`core.RetrievalCancelled`. :class:`WhatIfError` for a request
    that cannot be sent (a bad model id).
    """
    model = edited.model_id
    llm = _navigator(model, navigator)
    request = NavigatorRequest(edited.query, model, edited.current, edited.candidates, edited.remaining_visits,
                               cancellation or CancellationToken())
    started = time.monotonic()
    try:
        choice = llm.ask(request, (("system", edited.system), ("user", edited.user)), use_cache=False)
    except RetrievalCancelled:
        raise
    except NavigatorHTTPError as exc:
        transcript = exc.transcript or ()
        return WhatIfAnswer((), (), (), "", _pairs(transcript).get("answer", ""), None, time.monotonic() - started,
                            transcript, error=str(exc))
    offered, hallucinated = _split(edited.candidates, choice.selected)
    transcript = choice.transcript or ()
    return WhatIfAnswer(choice.selected, offered, hallucinated, choice.rationale, _pairs(transcript).get("answer", ""),
                        choice.usage, time.monotonic() - started, transcript)


def recorded_answer(offer: CandidatesOffered, decision: NavigatorChose | NavigatorFailed) -> WhatIfAnswer:
    """The recorded decision at ``offer`` in the form of a :class:`WhatIfAnswer` (``live`` false), to show
    beside the new one."""
    transcript = decision.transcript or ()
    raw = _pairs(transcript).get("answer", "")
    if isinstance(decision, NavigatorFailed):
        return WhatIfAnswer((), (), (), "", raw, None, decision.seconds, transcript, error=decision.error, live=False)
    offered, hallucinated = _split(offer.candidates, decision.selected + decision.hallucinated)
    return WhatIfAnswer(decision.selected + decision.hallucinated, offered, hallucinated, decision.rationale, raw,
                        decision.usage, decision.seconds, transcript, live=False)


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the side-by-side view: what it is, then the original's and the new answer's."""

    label: str
    before: str
    after: str

    @property
    def differs(self) -> bool:
        return self.before != self.after


def _tokens(answer: WhatIfAnswer) -> str:
    prompt, completion = answer.prompt_tokens, answer.completion_tokens
    if prompt is None and completion is None:
        return "(not reported)"
    shown = ["?" if count is None else str(count) for count in (prompt, completion)]
    return f"{shown[0]} prompt + {shown[1]} completion"


def side_by_side(before: WhatIfAnswer, after: WhatIfAnswer) -> tuple[Row, ...]:
    """The two answers line by line (chosen, not offered, rationale, failure, tokens, seconds, raw text); the
    screen draws them as it likes. Text is the models' own: show it with ``explorer.safe_text``."""
    return (
        Row("chosen", ", ".join(before.offered) or "(none)", ", ".join(after.offered) or "(none)"),
        Row("not offered", ", ".join(before.hallucinated), ", ".join(after.hallucinated)),
        Row("rationale", before.rationale, after.rationale),
        Row("failure", before.error or "", after.error or ""),
        Row("tokens", _tokens(before), _tokens(after)),
        Row("seconds", f"{before.seconds:.2f}", f"{after.seconds:.2f}"),
        Row("raw answer", before.raw, after.raw),
    )
