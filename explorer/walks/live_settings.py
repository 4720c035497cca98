"""What a walk continued live from a step is asked with, typed in one line: ``budget=20 depth=6 policy=best-first
prompt=v2 temperature=0.3 navigator=local:smollm2`` (any subset; the rest stay as they are). The policy is the order
the walk enters what was chosen, read as ``--policy`` reads it (:func:`explorer.walk_settings.read_policy`); it is
written only when it is not depth-first, so a depth-first walk's line reads as it did before walks had an order.

:meth:`LiveSettings.of` reads the walk's own settings (its prompt variant and temperature out of its model id),
:func:`read_live` what a person typed over them (a :class:`LiveSettingsError` names the word and the accepted
forms), and :meth:`LiveSettings.model_id` puts the model id back together: the navigator, its temperature and the
variant's files (``MODEL@temperature=0.3,system=FILE,prompt=FILE``). UI-free: the explorer's ``C`` and any other
caller share it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from core import Policy
from core.policy import DEFAULT_ALPHA

from ..navigators.llm.options import OptionError, join_options, split_options, with_options
from ..numbers import whole
from ..walk_settings import WalkSettings, policy_text, read_policy

__all__ = ["ACCEPTED", "LiveSettings", "LiveSettingsError", "read_live", "variant_options"]

ACCEPTED: Final = ("budget=N depth=N policy=depth-first|best-first[@alpha=A] prompt=NAME|FILE temperature=T "
                   "navigator=MODEL")
"""The forms :func:`read_live` accepts, said with every refusal."""
_OWN: Final = ("system", "prompt", "temperature")
"""The model id's options these settings set themselves."""
MAX_BUDGET, MAX_DEPTH = 100_000, 100_000


class LiveSettingsError(ValueError):
    """A line that does not read: the message names the word and the accepted forms."""


@dataclass(frozen=True)
class LiveSettings:
    """The budget, the depth limit, the prompt (``""``: the navigator's own; a variant kept in the prompts folder,
    or a file), the temperature (``""``: the navigator's default), the navigator (a model id without those) and the
    walk's order (best-first's ``alpha`` kept, and unused, under depth-first)."""

    budget: int
    depth: int
    navigator: str
    prompt: str = ""
    temperature: str = ""
    policy: Policy = Policy.DEPTH_FIRST
    alpha: float = DEFAULT_ALPHA

    @classmethod
    def of(cls, settings: WalkSettings, folder: Path) -> LiveSettings:
        """A walk's own: its budget, depth limit and order, and its model id taken apart (a model id that does not
        read is kept whole as the navigator)."""
        try:
            split = split_options(settings.model)
        except OptionError:
            return cls(settings.max_nodes_visited, settings.max_depth, settings.model, policy=settings.policy,
                       alpha=settings.alpha)
        written = dict(split.written)
        rest = [(key, value) for key, value in split.written if key not in _OWN]
        system = written.get("system", "")
        prompt = ""
        if system:
            path = Path(system)
            named = path.name.removesuffix(".system.txt")
            kept = path.parent == folder and named != path.name and written.get("prompt") == str(
                folder / f"{named}.prompt.txt")
            prompt = named if kept else system
        return cls(settings.max_nodes_visited, settings.max_depth, join_options(split.base, rest), prompt,
                   written.get("temperature", ""), settings.policy, settings.alpha)

    def text(self) -> str:
        """As a person types it: ``budget=20 depth=6 policy=best-first prompt=v2 temperature=0.3 navigator=MODEL``
        (the policy only when it is not depth-first; the navigator last)."""
        words = [f"budget={self.budget}", f"depth={self.depth}"]
        words += [f"policy={self.order}"] if self.policy is not Policy.DEPTH_FIRST else []
        words += [f"prompt={self.prompt}"] if self.prompt else []
        words += [f"temperature={self.temperature}"] if self.temperature else []
        return " ".join([*words, f"navigator={self.navigator}"])

    @property
    def order(self) -> str:
        """The walk's order as ``--policy`` writes it: ``depth-first``, ``best-first``, ``best-first@alpha=0.7``."""
        return policy_text(self.policy, self.alpha)

    def model_id(self, folder: Path) -> str:
        """The model id these settings ask: the navigator with the temperature and the prompt's files
        (:class:`LiveSettingsError` when the prompt names no variant or file, or an option does not read)."""
        added = {"temperature": self.temperature} if self.temperature else {}
        if self.prompt:
            added |= variant_options(self.prompt, folder)
        try:
            return with_options(self.navigator, added) if added else self.navigator
        except OptionError as exc:
            raise LiveSettingsError(f"{exc}; write {ACCEPTED}") from None

    def changes(self, before: LiveSettings) -> list[str]:
        """What differs from ``before``, in words for a walk's name (the budget apart: the name always says it)."""
        said = [f"depth {self.depth}"] if self.depth != before.depth else []
        if self.order != before.order:
            said.append(self.order)
        if self.prompt != before.prompt:
            said.append(f"prompt {Path(self.prompt).name}" if self.prompt else "the navigator's own prompt")
        if self.temperature != before.temperature:
            said.append(f"temperature {self.temperature or 'default'}")
        if self.navigator != before.navigator:
            said.append(f"navigator {self.navigator}")
        return said


def variant_options(given: str, folder: Path) -> dict[str, str]:
    """The model id's options that ask with the prompt ``given``: a variant kept in ``folder`` (``v2``: its
    ``v2.system.txt`` and ``v2.prompt.txt``), a variant's file (either of the two), or any other file, read as
    the system message."""
    kept = folder / f"{given}.system.txt", folder / f"{given}.prompt.txt"
    if "/" not in given and all(path.is_file() for path in kept):
        return {"system": str(kept[0]), "prompt": str(kept[1])}
    path = Path(given).expanduser()
    if path.is_file():
        for mine, other in ((".system.txt", ".prompt.txt"), (".prompt.txt", ".system.txt")):
            sibling = path.with_name(path.name.removesuffix(mine) + other)
            if path.name.endswith(mine) and sibling.is_file():
                pair = (path, sibling) if mine == ".system.txt" else (sibling, path)
                return {"system": str(pair[0]), "prompt": str(pair[1])}
        return {"system": str(path)}
    raise LiveSettingsError(f"prompt={given}: no variant {given!r} is kept in {folder} and no such file; keep one "
                            f"with W (ctrl+s), or name a file; write {ACCEPTED}")


def read_live(text: str, current: LiveSettings) -> LiveSettings:
    """``current`` with what ``text`` sets (``key=value`` words, any subset, in any order)."""
    settings = current
    for word in text.split():
        key, equals, value = word.partition("=")
        key = key.strip().lower()
        if not equals or key not in ("budget", "depth", "policy", "prompt", "temperature", "navigator"):
            raise LiveSettingsError(f"{word!r}: not a setting; write {ACCEPTED} (any of them)")
        if key in ("budget", "depth"):
            low, high = (1, MAX_BUDGET) if key == "budget" else (0, MAX_DEPTH)
            try:
                number = whole(value, low, high) if value.strip() == value else None  # ASCII digits only
            except ValueError:
                number = None
            if number is None or value[:1] in ("+", "-"):
                raise LiveSettingsError(f"{word!r}: {key} is a whole number from {low} to {high:,}; write {ACCEPTED}")
            settings = replace(settings, budget=number) if key == "budget" else replace(settings, depth=number)
        elif key == "temperature":
            try:
                temperature = float(value) if value else 0.0
            except ValueError:
                temperature = -1.0
            if not 0.0 <= temperature <= 2.0:
                raise LiveSettingsError(f"{word!r}: temperature is a number from 0 to 2 (blank: the default); "
                                        f"write {ACCEPTED}")
            settings = replace(settings, temperature=value)
        elif key == "policy":
            try:
                policy, alpha = read_policy(value)
            except ValueError as exc:
                raise LiveSettingsError(f"{word!r}: {str(exc).removeprefix(f'{value!r}: ')}") from None
            settings = replace(settings, policy=policy, alpha=alpha)
        elif key == "navigator":
            if not value:
                raise LiveSettingsError(f"{word!r}: name the model to ask, e.g. navigator=lexical:default; "
                                        f"write {ACCEPTED}")
            settings = replace(settings, navigator=value)
        else:
            settings = replace(settings, prompt=value)
    return settings
