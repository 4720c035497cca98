"""Per-model options written in the model id: ``MODEL@key=value,key=value``.

The options of an LLM navigator travel in its model id, so that they go wherever the id goes: into a walk's
name in the explorer's list, into ``--compare MODEL``, into traces (the ``walk_started`` line keeps the id
whole) and into every decision's transcript. For example::

    local:smollm2@temperature=0.8,seed=7
    openai:gpt-4o-mini@schema=off,max_tokens=200
    local:smollm2@system=prompts/b-system.txt,prompt=prompts/b-user.txt

The options start at the first ``@`` followed by ``key=``, so a model name or a file path holding an ``@``
(``local:/models/v@2/x.gguf``) stays whole. From there on, everything is options: a tail that does not read as
``key=value`` pairs (a comma too many, an item with no ``=``) is an :class:`OptionError`, never part of the
model's name. A value holding a comma, an ``@`` or a quote, or with spaces around it, is written in double
quotes, with ``""`` for a quote inside, as ``--force`` writes an id (:mod:`..quoting`)::

    local:smollm2@system="prompts/a,b.txt",temperature=0.5

Keys:

``temperature`` (0 to 2; default 0), ``seed`` (a whole number), ``top_p`` (above 0, at most 1)
    Sampling, sent as the request's own fields. A request with a temperature above 0 and no seed is never
    answered from the response cache (each such call is a fresh sample).
``max_tokens``
    The most tokens an answer may take (default: enough for the ids asked for and the bounded rationale).
``schema`` (``auto``, ``on``, ``off``; default ``auto``)
    Structured output (:mod:`.schema`): ``auto`` asks for it and, when the server refuses it, asks once
    more without it; ``on`` asks for it and a refusal is a failure; ``off`` never asks.
``rationale`` (``off``, or the most characters from 1 to 240; default 240)
    How long the rationale the schema allows may be; ``off`` asks for the ids alone (a short answer for a small
    model).
``max_items`` (a whole number from 1 to 64, or ``all``; default: as many as offered, within the visits left)
    The most ids the schema lets one answer hold (a small model asked for fewer ids answers in fewer tokens).
``scores`` (``on``, ``off``; default ``off``)
    Ask for a score from 0 to 100 for every offered id beside the ids chosen, inside the same structured output
    (:func:`.schema.choice_schema`): the answer's scores, scaled to 0-1, are the choice's, so a best-first walk
    (``--policy best-first``) can come back to a sibling the model scored but did not choose. Not with
    ``grammar=compact``, whose grammar holds ids alone.
``grammar`` (``compact`` or ``off``; ``local:`` models only)
    Ask llama.cpp for the answer by a grammar of its JSON written with no whitespace, holding at least one id
    (:func:`.schema.compact_grammar`), in place of the JSON schema: a small model's answer in half the tokens.

``local:smollm2`` is asked with ``rationale=off,max_items=2,grammar=compact`` and the ``ids`` prompt files unless its
id says otherwise, key by key (``explorer.navigators.local_model.SMALL_MODEL_DEFAULTS``): ``rationale=240``,
``max_items=all`` and ``grammar=off`` ask it as any LLM is asked; ``local:PATH.gguf``, the same file by its path,
gets the generic prompt.
``system``, ``prompt``
    A file holding the system prompt, and a file holding the user message's template (:mod:`.prompt`).
``threads``, ``ctx``, ``slots``
    ``local:`` models only: the llama.cpp server's threads, context tokens per slot, and parallel slots.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from pathlib import Path, PurePath
from typing import Final

from ...corpora.yaml_source import did_you_mean
from ...numbers import whole
from ..quoting import QUOTE, QuoteError, needs_quotes, quoted, read_field


class OptionError(ValueError):
    """An option in a model id that cannot be used; the message says which and what to write instead."""


class StructuredOutput(StrEnum):
    """Whether a request asks the server for output constrained to a JSON schema."""

    AUTO = "auto"
    """Ask for it; when the server refuses the schema (HTTP 400 or 422), ask once more without it."""
    ON = "on"
    """Ask for it; a refusal is a failure."""
    OFF = "off"
    """Never ask for it: the prompt alone says what to answer."""


SAMPLING_KEYS: Final = ("temperature", "seed", "top_p", "max_tokens")
PROMPT_KEYS: Final = ("system", "prompt")
LOCAL_KEYS: Final = ("threads", "ctx", "slots")
KEYS: Final = (*SAMPLING_KEYS, "schema", "rationale", "max_items", "scores", "grammar", *PROMPT_KEYS, *LOCAL_KEYS)
FILE_KEYS: Final = PROMPT_KEYS
MAX_SEED: Final = 2**63 - 1
ALL_ITEMS: Final = 1_000_000
"""``max_items=all``: as many ids as offered (within the visits left), said where a default caps them."""
MAX_TOKENS_LIMIT: Final = 100_000


@dataclass(frozen=True, slots=True)
class ModelOptions:
    """The options of one model id (``None``: not given, the default applies)."""

    temperature: float | None = None
    seed: int | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    schema: StructuredOutput = StructuredOutput.AUTO
    rationale: int | None = None
    """The most characters the schema lets a rationale hold (0: ``rationale=off``, no rationale asked for)."""
    max_items: int | None = None
    """The most ids the schema lets an answer hold (``None``: as many as offered, within the visits left)."""
    scores: bool = False
    """Whether the answer is asked for a score from 0 to 100 per offered id (``scores=on``)."""
    grammar: str | None = None
    """``compact``: a ``local:`` model is asked by :func:`.schema.compact_grammar` (``None`` or ``off``: by the
    schema)."""
    system: Path | None = None
    """A file holding the system prompt."""
    prompt: Path | None = None
    """A file holding the user message's template."""
    threads: int | None = None
    ctx: int | None = None
    slots: int | None = None

    @property
    def reads_file(self) -> bool:
        """Whether these options name a file on this machine (a prompt file)."""
        return self.system is not None or self.prompt is not None

    @property
    def cacheable(self) -> bool:
        """Whether an answer may come from (and go to) the response cache: not for a fresh sample each call
        (a temperature above 0 with no seed)."""
        return not (self.temperature is not None and self.temperature > 0 and self.seed is None)


@dataclass(frozen=True, slots=True)
class SplitModel:
    """A model id taken apart: the model itself and the options after its ``@``."""

    base: str
    options: ModelOptions
    written: tuple[tuple[str, str], ...] = ()
    """The options as written, in order (for putting an id back together)."""


def _number(key: str, text: str, *, low: float, high: float, low_open: bool = False) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value > high or value < low or (low_open and value == low):
        above = f"above {low:g}" if low_open else f"from {low:g}"
        raise OptionError(f"{key}={text}: {key} must be a number {above} to {high:g}, e.g. {key}=0.7")
    return value


def _whole(key: str, text: str, *, low: int, high: int, example: str) -> int:
    try:
        return whole(text, low, high)
    except ValueError:
        raise OptionError(f"{key}={text}: {key} must be a whole number from {low:,} to {high:,}, "
                          f"e.g. {key}={example}") from None


def _value(key: str, text: str) -> object:
    if key == "temperature":
        return _number(key, text, low=0.0, high=2.0)
    if key == "top_p":
        return _number(key, text, low=0.0, high=1.0, low_open=True)
    if key == "seed":
        return _whole(key, text, low=0, high=MAX_SEED, example="7")
    if key == "max_tokens":
        return _whole(key, text, low=1, high=MAX_TOKENS_LIMIT, example="300")
    if key == "threads":
        return _whole(key, text, low=1, high=256, example="1")
    if key == "ctx":
        return _whole(key, text, low=256, high=1_048_576, example="4096")
    if key == "slots":
        return _whole(key, text, low=1, high=64, example="2")
    if key == "max_items":
        if text.strip().lower() == "all":
            return ALL_ITEMS
        return _whole(key, text, low=1, high=64, example="2")
    if key == "rationale":
        if text.strip().lower() == "off":
            return 0
        return _whole(key, text, low=1, high=240, example="off")
    if key == "scores":
        if text.strip().lower() not in ("on", "off"):
            raise OptionError(f"scores={text}: scores must be on (a score from 0 to 100 per offered id) or off")
        return text.strip().lower() == "on"
    if key == "grammar":
        if text.strip().lower() not in ("compact", "off"):
            raise OptionError(f"grammar={text}: grammar must be compact (the answer's JSON with no whitespace, "
                              "at least one id) or off (the JSON schema)")
        return text.strip().lower()
    if key == "schema":
        try:
            return StructuredOutput(text.lower())
        except ValueError:
            raise OptionError(f"schema={text}: schema must be auto, on or off") from None
    if not text:
        raise OptionError(f"{key}=: name a file, e.g. {key}=prompts/{key}.txt")
    return Path(text).expanduser()


# Where the options start: the first ``@`` followed by ``key=``. An ``@`` followed by anything else (a path's
# ``local:/models/v@2/x.gguf``, ``user@host``) is part of the model.
_OPTIONS_START = re.compile(r"@(?=[\s,]*[A-Za-z_][A-Za-z0-9_]*\s*=)")
"""Where the options start: the first ``@`` followed by ``key=``, commas too many before it included (they are an
error, never part of the model's name)."""
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
OPTIONS_SYNTAX: Final = ("MODEL@key=value[,key=value...] (a value holding a comma, an @ or a quote, or with spaces "
                         'around it, in double quotes: system="prompts/a,b.txt")')
"""The options' rule in a few words, for every error that says what to write."""


def _pairs(model: str, tail: str, start: int) -> list[tuple[str, str]]:
    """``[("temperature", "0.8"), ...]`` for the options ``tail`` (``model[start:]``); :class:`OptionError` when it
    does not read, so that nothing of it is ever taken for part of the model's name."""
    pairs: list[tuple[str, str]] = []
    at = 0
    while True:
        key, equals, rest = tail[at:].partition("=")
        if "," in key or not equals:
            item = tail[at:].partition(",")[0].strip()
            if not item:
                where = f"after the comma at character {start + at}" if at else "after the @"
                raise OptionError(f"{model!r}: an empty option {where} (a comma too many?); write {OPTIONS_SYNTAX}")
            before = f"; if it belongs to {pairs[-1][0]}, put that value in double quotes: " \
                     f"{pairs[-1][0]}={quoted(pairs[-1][1] + ',' + item)}" if pairs else ""
            raise OptionError(f"{model!r}: {item!r} is not key=value{before}; write {OPTIONS_SYNTAX}")
        key = key.strip()
        if not _KEY.fullmatch(key):
            raise OptionError(f"{model!r}: {key!r} is not an option's name; write {OPTIONS_SYNTAX}")
        value_at = at + len(tail[at:]) - len(rest)
        try:
            value, was_quoted, end = read_field(tail, value_at, ",")
        except QuoteError as exc:
            problem = ("is never closed" if exc.after is None
                       else f"is followed by {exc.after!r}; put the whole value in the quotes")
            raise OptionError(f"{model!r}: the quote at character {start + exc.opened + 1} (in {key}=) {problem}; "
                              f"write {OPTIONS_SYNTAX}") from None
        if not was_quoted and ("@" in value or QUOTE in value):
            character = "@" if "@" in value else QUOTE
            raise OptionError(f"{model!r}: {key}={value}: a value holding {character!r} is written in double "
                              f"quotes: {key}={quoted(value)}")
        pairs.append((key.lower(), value))
        if end >= len(tail):
            return pairs
        at = end + 1  # past the comma


def split_options(model: str) -> SplitModel:
    """``local:smollm2@temperature=0.8`` as its base ``local:smollm2`` and its options; :class:`OptionError`
    for options that do not read (a comma too many, an item that is no ``key=value``, an ``@`` or a quote in a
    value not quoted), an unknown key, a value out of range, or a key given twice."""
    found = _OPTIONS_START.search(model, 1)
    if found is None:
        return SplitModel(model, ModelOptions())
    at = found.start()
    pairs = _pairs(model, model[at + 1:], at + 1)
    base = model[:at]
    values: dict[str, object] = {}
    for key, text in pairs:
        if key not in KEYS:
            raise OptionError(f"{model!r}: unknown option {key!r}{did_you_mean(key, KEYS)}")
        if key in values:
            raise OptionError(f"{model!r}: option {key!r} is given twice; give it once")
        values[key] = _value(key, text)
    if values.get("scores") and values.get("grammar") == "compact":
        raise OptionError(f"{model!r}: scores=on needs the JSON schema, and grammar=compact asks for ids alone; "
                          "leave out one of them")
    return SplitModel(base, ModelOptions(**values), tuple(pairs))  # type: ignore[arg-type]


def filled(options: ModelOptions, defaults: ModelOptions) -> ModelOptions:
    """``options`` with each option it does not give (``None``) taken from ``defaults``: a bundled model's
    measured settings apply where its id says nothing, and what the id says wins, key by key
    (``local:smollm2@system=v2.system.txt`` keeps the bundled template, ids cap and grammar)."""
    taken = {field.name: getattr(defaults, field.name) for field in fields(ModelOptions)
             if getattr(options, field.name) is None}
    return replace(options, **taken)


def join_options(base: str, written: tuple[tuple[str, str], ...] | list[tuple[str, str]]) -> str:
    """The model id for ``base`` with these options: ``local:smollm2@temperature=0.8,seed=7``; a value that
    would not read back whole (``a,b.txt``) is put in double quotes."""
    if not written:
        return base
    return f"{base}@{','.join(f'{key}={_written(value)}' for key, value in written)}"


def _written(value: str) -> str:
    return quoted(value) if value and needs_quotes(value, ',@"') else value


def with_options(model: str, added: dict[str, str]) -> str:
    """``model`` with ``added`` options (written as text, e.g. from the command line) put after its own.

    An option the id already gives with another value is an :class:`OptionError` (say it once); the result is
    checked as a whole, so a bad value is refused here too.
    """
    split = split_options(model)
    written = list(split.written)
    have = dict(written)
    for key, value in added.items():
        if key in have:
            if have[key] != value:
                raise OptionError(f"{key}={value} is asked for twice, differently: the model id {model!r} says "
                                  f"{key}={have[key]}; say it once")
            continue
        written.append((key, value))
    joined = join_options(split.base, written)
    split_options(joined)
    return joined


def short_model_id(model: str) -> str:
    """A model id for a short label: a file's folder left out, in the model and in each file option
    (``script:/a/b/case.yaml`` is ``script:case.yaml``; ``local:/m/x.gguf@system=/p/a.txt`` is
    ``local:x.gguf@system=a.txt``)."""
    try:
        split = split_options(model)
    except OptionError:
        split = SplitModel(model, ModelOptions())
    kind, colon, rest = split.base.partition(":")
    base = f"{kind}:{PurePath(rest).name}" if colon and ("/" in rest or "\\" in rest) else split.base
    written = [(key, PurePath(value).name if key in FILE_KEYS and value else value) for key, value in split.written]
    return join_options(base, written)
