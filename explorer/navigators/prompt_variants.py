"""Prompt variants: an edited what-if request kept as two files and a model id that reads them.

A variant named ``v2`` is ``v2.system.txt`` (the system message as edited) and ``v2.prompt.txt`` (the user
message as edited, turned back into a template: the offer's own text — the query, where the walk is, the
numbered candidates, the ids, the visits left — put back as ``{{query}}``, ``{{position}}``, ``{{candidates}}``,
``{{ids}}`` and ``{{remaining_visits}}``), in a prompts folder: ``--prompts DIR``, by default ``prompts`` beside the
corpus (the ``prompts`` of a program's :class:`~.folders.Folders`, which the screen holds in its ``Wiring``). Its
model id is the request's with ``@system=FILE,prompt=FILE``, so a later decision, a re-walk and ``eval --compare``
all ask with the variant's words. :func:`kept_variants` lists a folder's variants and :func:`variant_diff` says how
one differs from the built-in prompt, as a unified diff.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from core import NavigatorRequest

from ..outputs import Output, Read, write
from ..reading import read_file
from .llm.options import OptionError, join_options, short_model_id, split_options, with_options
from .llm.prompt import (
    MAX_PROMPT_FILE_BYTES,
    SYSTEM_PROMPT,
    PromptFileError,
    placeholder_values,
    read_prompt_file,
    user_prompt,
)
from .local_model import bundled_prompts
from .what_if import EditedRequest

DEFAULT_VARIANT: Final = "v2"
"""The name a variant is kept under when none is typed."""

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")

PROMPT_FILES = ("system", "prompt")
"""The model id's options that make it a prompt variant."""


class VariantError(ValueError):
    """A variant that cannot be kept: a bad name, a folder that cannot be written, a name already taken."""


@dataclass(frozen=True, slots=True)
class PromptVariant:
    """A kept variant: its name, its two files and the model id that asks with them."""

    name: str
    model_id: str
    system_file: Path
    prompt_file: Path

    def system(self) -> str | None:
        """The system message kept in :attr:`system_file`, or ``None`` when it no longer reads as one."""
        try:
            return read_prompt_file(self.system_file, "system prompt")
        except PromptFileError:
            return None


TEMPLATED = ("candidates", "candidates_compact", "position", "query", "ids")
"""The placeholders whose text an edited user message has put back (a node's title alone is too short to tell from
the person's own words: "under Billing" stays literal)."""
VISITS = re.compile(r"((?:Remaining visits|Visits left): )(\d+)\b")
"""The visits left as the built-in template and the small models' ``ids`` template write them."""


def template_from(user: str, request: NavigatorRequest) -> str:
    """The edited user message ``user`` as a template for every offer: this offer's own texts put back as
    placeholders (the longest first, so a query inside a candidate's title stays literal text), in the generic
    template's words and in the ``ids`` template's (``local:smollm2``'s own: one line per candidate, ``Visits
    left: N``)."""
    template = user.replace("{{", "{ {")  # a literal pair of braces can never read as a placeholder
    values = placeholder_values(request)
    pieces = [(name, values[name]) for name in TEMPLATED]
    for name, text in sorted(pieces, key=lambda piece: -len(piece[1])):
        if text:
            template = template.replace(text, "{{" + name + "}}")
    left = str(request.remaining_visits)
    return VISITS.sub(lambda match: match.group(1) + ("{{remaining_visits}}" if match.group(2) == left
                                                      else match.group(2)), template)


def keep_variant(edited: EditedRequest, name: str, folder: Path, reads: Iterable[Read] = ()) -> PromptVariant:
    """Write ``edited``'s system message and user template as the variant ``name`` in ``folder`` (made if need
    be) and return it. The same name kept again with the same words is the same variant; with other words it is
    refused (:class:`VariantError`), never overwritten; and never over a file in ``reads`` (the program's ledger:
    the one gate, :func:`explorer.outputs.write`)."""
    name = name.strip() or DEFAULT_VARIANT
    if not _NAME.fullmatch(name):
        raise VariantError(f"variant name {name!r}: use letters, digits, '.', '_' or '-' (e.g. v2)")
    request = NavigatorRequest(edited.query, edited.model, edited.current, edited.candidates,
                               edited.remaining_visits)
    texts = {folder / f"{name}.system.txt": edited.system,
             folder / f"{name}.prompt.txt": template_from(edited.user, request)}
    kept: set[Path] = set()
    for path, text in texts.items():
        there: str | None
        try:
            there = read_file(path, MAX_PROMPT_FILE_BYTES).decode("utf-8", "replace")
        except FileNotFoundError:
            continue
        except OSError:  # a folder, a FIFO, a loop of links...: no variant of these words
            there = None
        if there != text:
            raise VariantError(f"{path}: a variant {name} with other words is kept there; type another name")
        if path.exists():
            kept.add(path)  # the same words there already: nothing to write (it may be read now, by system=)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for path, text in texts.items():
            if path in kept:
                continue
            write(Output("the prompt variant's file", path), text, reads, doing="keep the variant",
                  example="v2.system.txt")  # none there: checked above
    except OSError as exc:
        raise VariantError(f"{folder}: the variant cannot be written ({exc.strerror or exc}); "
                           "name another folder with --prompts DIR") from None
    system_file, prompt_file = texts
    try:
        model_id = with_options(edited.model_id, {"system": str(system_file), "prompt": str(prompt_file)})
    except OptionError as exc:
        raise VariantError(str(exc)) from None
    return PromptVariant(name, model_id, system_file, prompt_file)


def without_variant(model: str) -> str | None:
    """``model`` without its prompt files (``None``: it names none, so it is no variant)."""
    try:
        split = split_options(model)
    except OptionError:
        return None
    rest = [(key, value) for key, value in split.written if key not in PROMPT_FILES]
    return join_options(split.base, rest) if len(rest) < len(split.written) else None


def variant_name(model: str) -> str | None:
    """The prompt variant ``model`` asks with, named by its files' stem: ``v2`` for
    ``local:smollm2@system=/p/v2.system.txt,prompt=/p/v2.prompt.txt`` (the system file's, else the prompt
    file's); ``None`` for a model id with no prompt file."""
    try:
        options = dict(split_options(model).written)
    except OptionError:
        return None
    for key in PROMPT_FILES:
        name = Path(options.get(key) or "").name
        for suffix in (f".{key}.txt", ".txt"):
            name = name.removesuffix(suffix)
        if name:
            return name
    return None


def model_label(model: str) -> str:
    """How a side of an evaluation or a kept run is named: by its model and its prompt variant, with no folder
    (``local:smollm2 with prompt v2``, ``lexical:default``); the whole model id belongs in the detail."""
    name, base = variant_name(model), without_variant(model)
    if name is None or base is None:
        return short_model_id(model)
    return f"{short_model_id(base)} with prompt {name}"


def kept_variants(folder: Path | None) -> list[str]:
    """The names of the variants kept in ``folder`` (``v2`` for ``v2.system.txt`` or ``v2.prompt.txt``), by name;
    none when there is no folder, or it cannot be read."""
    if folder is None:
        return []
    try:
        names = {path.name.rsplit(".", 2)[0] for key in PROMPT_FILES for path in folder.glob(f"*.{key}.txt")
                 if path.is_file()}
    except OSError:
        return []
    return sorted(name for name in names if _NAME.fullmatch(name))


def builtin_prompt(request: NavigatorRequest) -> tuple[str, str]:
    """The original prompt of ``request``'s model, what its variants are diffed against: its system prompt, and its
    user message as a template. For most models the built-in one (the user message's offer put back as placeholders,
    as a variant's is kept, :func:`template_from`); for a bundled model asked with prompt files of its own
    (``local:smollm2``'s ``ids`` prompt), those files."""
    shipped = bundled_prompts(request.model)
    if shipped is not None:
        system, template = shipped
        return read_prompt_file(system, "system prompt"), read_prompt_file(template, "prompt template")
    return SYSTEM_PROMPT, template_from(user_prompt(request), request)


def variant_diff(folder: Path, name: str, request: NavigatorRequest) -> str:
    """How the variant ``name`` kept in ``folder`` differs from the built-in prompt: a unified diff (difflib) of
    its system file against the built-in system prompt, then of its prompt file against the built-in user template
    (:func:`builtin_prompt`); a file not kept, the same as the built-in, or that cannot be read says so in a line."""
    parts: list[str] = []
    for key, builtin in zip(PROMPT_FILES, builtin_prompt(request), strict=True):
        path = folder / f"{name}.{key}.txt"
        what = "system prompt" if key == "system" else "user template"
        try:  # as a prompt file is read: a regular file, and no more than a prompt's limit (a FIFO is not waited on)
            text = read_prompt_file(path, what) if path.exists() else None
        except PromptFileError as exc:
            parts.append(f"{path.name}: cannot be read ({str(exc).removeprefix(f'{path}: ')})\n")
            continue
        if text is None:
            parts.append(f"{path.name}: not kept; the built-in {what} is used\n")
        elif text.rstrip("\n") == builtin.rstrip("\n"):
            parts.append(f"{path.name}: the built-in {what}, unchanged\n")
        else:
            lines = difflib.unified_diff(builtin.rstrip("\n").splitlines(), text.rstrip("\n").splitlines(),
                                         f"the built-in {what}", path.name, lineterm="")
            parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)
