"""What a walk is run with: one record, from the query box or the command line to a saved trace and back.

The record lies here, at the foot of the explorer beside :mod:`explorer.ending`, rather than in ``walks/``,
because a trace's header carries it (:class:`explorer.trace.TraceHeader`) and the trace layer is below the
navigators and the walks (the replay navigator reads traces): every layer that walks, saves or reads a walk
can hold this one record, and none keeps a renamed copy of its fields. How it reads in a label (the model
with its folders left out) needs the navigators' model-id grammar, so that lives above, in
:mod:`explorer.walks.settings`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

from core import OnFailure, Policy
from core.policy import DEFAULT_ALPHA

__all__ = ["MapRef", "WalkSettings", "policy_note", "policy_text", "read_policy"]


@dataclass(frozen=True, slots=True)
class MapRef:
    """A map variant a corpus was walked with (``walk``/``eval --map FILE``, ``M`` in the explorer): the overlay
    file's path and the sha256 of its bytes. A setting like a prompt variant, carried by the corpus it was applied
    to (``explorer.corpora.map_variant``) into a trace's header, a kept run and ``eval``'s header; it lies here so
    that the trace and the corpora, which import neither each other, both hold it."""

    path: str
    sha256: str

    @property
    def name(self) -> str:
        """The file's name without its folder (``handbook.map.yaml``), as a label says it."""
        return Path(self.path).name

    @property
    def said(self) -> str:
        """``handbook.map.yaml (sha256 0123456789ab…)``: its name and the start of its hash, as a page says it."""
        return f"{self.name} (sha256 {self.sha256[:12]}…)"

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "sha256": self.sha256}

    @classmethod
    def from_json(cls, data: object) -> MapRef | None:
        """The map a document names (``{"path": ..., "sha256": ...}``), or ``None`` when it names none (an older
        document) or the block is not one (a reader that does not know it ignores it)."""
        if not isinstance(data, dict):
            return None
        path, sha = data.get("path"), data.get("sha256")
        return cls(path, sha) if isinstance(path, str) and isinstance(sha, str) and path else None


@dataclass(frozen=True)
class WalkSettings:
    """Everything a walk is run with: settable in the app and from the command line, kept in its trace."""

    query: str
    model: str = "lexical:default"
    """The navigator's model id (a trace's header calls it ``navigator``)."""
    max_nodes_visited: int = 15
    max_depth: int = 6
    on_failure: OnFailure = OnFailure.THROW
    policy: Policy = Policy.DEPTH_FIRST
    """The order the walk enters the branches chosen (a trace without one was walked depth-first)."""
    alpha: float = DEFAULT_ALPHA
    """Best-first's weight of a node's own score in its path score (kept, and unused, under depth-first)."""

    def but(self, **changes: object) -> WalkSettings:
        return replace(self, **changes)  # type: ignore[arg-type]


POLICY_NAMES = {Policy.DEPTH_FIRST: "depth-first", Policy.BEST_FIRST: "best-first"}
"""How the command line and the screen write each walk policy."""


def policy_text(policy: Policy, alpha: float = DEFAULT_ALPHA) -> str:
    """``depth-first``, ``best-first``, or ``best-first@alpha=0.7`` when alpha is not the default: as
    ``--policy`` reads it back."""
    name = POLICY_NAMES[policy]
    if policy is Policy.BEST_FIRST and alpha != DEFAULT_ALPHA:
        short = f"{alpha:g}"  # 0.7, not 0.7000000000000001; but never rounded (0.3333333 read back as 0.333333)
        return f"{name}@alpha={short if float(short) == alpha else repr(float(alpha))}"
    return name


def policy_fields(settings: WalkSettings) -> dict[str, str | float]:
    """A best-first walk's policy and alpha as a JSON document's settings hold them (``"policy": "best_first"``);
    nothing for depth-first, so a depth-first walk's document reads as it always did (and one without them was
    walked so)."""
    if settings.policy is Policy.DEPTH_FIRST:
        return {}
    return {"policy": settings.policy.value, "alpha": settings.alpha}


def policy_note(policy: Policy, alpha: float) -> str:
    """What a line of settings adds for a walk that is not depth-first (`` · best-first``); nothing for one that
    is, so a depth-first walk reads as it always did."""
    return "" if policy is Policy.DEPTH_FIRST else f" · {policy_text(policy, alpha)}"


def read_policy(text: str) -> tuple[Policy, float]:
    """``depth-first`` or ``best-first[@alpha=A]`` (A in (0, 1], default 0.5) as a policy and its alpha;
    ``ValueError`` saying what to write."""
    name, at, options = text.strip().partition("@")
    policies = {written: policy for policy, written in POLICY_NAMES.items()}
    policy = policies.get(name.strip().lower().replace("_", "-"))
    if policy is None:
        raise ValueError(f"{text!r} is no walk policy; write depth-first or best-first (best-first@alpha=0.7)")
    alpha = DEFAULT_ALPHA
    if at and not options.strip():
        raise ValueError(f"{text!r}: nothing after @; write {name.strip()} alone, or best-first@alpha=0.7")
    if options.count("alpha") > 1:
        raise ValueError(f"{text!r}: alpha is given more than once; give it once (best-first@alpha=0.7)")
    if options:
        key, equals, value = options.partition("=")
        if key.strip() != "alpha" or not equals:
            raise ValueError(f"{text!r}: the one option of a policy is alpha (best-first@alpha=0.7)")
        if policy is not Policy.BEST_FIRST:
            raise ValueError(f"{text!r}: alpha weighs best-first's path scores; depth-first takes none")
        try:
            alpha = float(value)
        except ValueError:
            alpha = math.nan
        if not 0 < alpha <= 1:
            raise ValueError(f"{text!r}: alpha must be a number above 0 and at most 1 (best-first@alpha=0.7)")
    return policy, alpha
