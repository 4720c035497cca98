"""A run now against a kept run, which is always the *was* side (``eval --against FILE``, ``o`` on the evaluation
screen): first one sentence that says whether it worked (``Fixed 3 of 4 kept cases, broke none``, ``Not fixed: the
kept case still misses — turned away at the roots``), then, on the questions both runs hold (a partial run holds
some), said with how many (``compared on 10 of 41 questions both runs hold``); hit, hit@3 and precision deltas,
and the questions that flipped: fixed (the kept run missed it, the run now hits it) and broken (hit then, missed
now), each with the miss of the walk that missed. Sides are named by their model and prompt variant
(``local:smollm2 with prompt v2``); the kept file's path and the whole model ids are the detail, last."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ...corpora.questions import CHECK_SET_SUFFIX
from ...numbers import counted
from ...safe_text import visible
from ...walk_settings import policy_text
from .kept_run import KeptQuestion, KeptRun, check_fit

__all__ = ["RunComparison"]

Pair = tuple[KeptQuestion, KeptQuestion]


@dataclass(frozen=True)
class RunComparison:
    """``now`` against ``kept`` (was), over the same question set and corpus, on the questions both hold."""

    kept: KeptRun
    now: KeptRun

    def __post_init__(self) -> None:
        check_fit(self.kept, self.now.questions_sha256, self.now.corpus_sha256,
                  compared_on=self.now.questions_path or None)

    def pairs(self) -> list[Pair]:
        """(was, now) for each question both runs hold, in question order."""
        was = {question.id: question for question in self.kept.results}
        return [(was[question.id], question) for question in self.now.results if question.id in was]

    def flipped(self) -> tuple[list[Pair], list[Pair]]:
        """The questions fixed (missed then, hit now) and broken (hit then, missed now): (was, now) pairs."""
        pairs = self.pairs()
        return ([p for p in pairs if not p[0].hit and p[1].hit], [p for p in pairs if p[0].hit and not p[1].hit])

    def on_both(self) -> tuple[KeptRun, KeptRun]:
        """Each run as it reads on the questions both hold (its figures over those alone)."""
        pairs = self.pairs()
        return (KeptRun(self.kept.path, self.kept.settings, "", "", len(pairs), tuple(p[0] for p in pairs)),
                KeptRun(self.now.path, self.now.settings, "", "", len(pairs), tuple(p[1] for p in pairs)))

    def to_json(self) -> dict[str, object]:
        pairs = self.pairs()
        fixed, broken = self.flipped()
        then, now = self.on_both()
        return {
            "against": self.kept.path, "kept_navigator": self.kept.navigator, "navigator": self.now.navigator,
            "kept_label": self.kept.label, "label": self.now.label, "kept_partial": self.kept.partial,
            "compared_on": len(pairs), "questions": self.now.total,
            "policy": {"kept": self._order(self.kept), "now": self._order(self.now)},
            "hits": {"kept": then.hits, "now": now.hits, "delta": now.hits - then.hits},
            "hits_at_3": {"kept": then.hits_at_3, "now": now.hits_at_3, "delta": now.hits_at_3 - then.hits_at_3},
            "precision": {"kept": then.precision, "now": now.precision,
                          "delta": None if then.precision is None or now.precision is None
                          else now.precision - then.precision},
            "says": self.headline(),
            "fixed": [{"id": after.id, "then": before.miss} for before, after in fixed],
            "broken": [{"id": after.id, "now": after.miss} for before, after in broken],
        }

    def lines(self) -> list[str]:
        """``eval --against`` and ``o``: was → now, on how many questions, the deltas, the questions that flipped
        (each with the miss of the walk that missed), then the detail: the kept file and both whole model ids."""
        pairs = self.pairs()
        count = len(pairs)
        lines = [visible(self.headline()),
                 visible(f"Against {Path(self.kept.path).name}: was {self.kept.label} · now {self.now.label}"),
                 f"  compared on {count} of {counted(self.now.total, 'question')} both runs hold"]
        was, now = self._order(self.kept), self._order(self.now)
        if was != now:  # a flip may be the walk's order, not the navigator's answers
            lines.append(f"  walked in other orders: was {was} · now {now}")
        if pairs:
            lines += self._figures(pairs)
        lines.append(visible(f"Was: {self.kept.path} · {self.kept.navigator}")
                     + (f" · {self.kept.holding_words()}" if self.kept.partial else ""))
        lines.append(visible(f"Now: {self.now.path} · {self.now.navigator}")
                     + (f" · {self.now.holding_words()}" if self.now.partial else ""))
        return lines

    def headline(self) -> str:
        """Whether it worked, in one sentence: ``Fixed 3 of 4 kept cases, broke none``; ``Not fixed: the kept case
        still misses — turned away at the roots``; ``Nothing to fix: …`` when the kept run missed none. Cases are
        *kept cases* over a check set (``K``'s), else the questions the kept run missed. Plain: a miss's words name
        node ids (pass it through ``safe_text``)."""
        pairs = self.pairs()
        if not pairs:
            return "Nothing to compare yet: no question is held by both runs"
        fixed, broken = self.flipped()
        missed = [pair for pair in pairs if not pair[0].hit]
        checks = any(run.questions_path.endswith(CHECK_SET_SUFFIX) for run in (self.kept, self.now))

        def cases(count: int) -> str:
            if checks:
                return "kept case" if count == 1 else "kept cases"
            return "question the kept run missed" if count == 1 else "questions the kept run missed"

        named = ", ".join(after.id for _, after in broken[:3]) + (", …" if len(broken) > 3 else "")
        broke = f"broke {len(broken)} ({named})" if broken else "broke none"
        if not missed:
            return f"Nothing to fix: the kept run missed none of {counted(len(pairs), 'question')}; this run {broke}"
        if fixed:
            return f"Fixed {len(fixed)} of {len(missed)} {cases(len(missed))}, {broke}"
        briefs = Counter(after.brief for _, after in missed if after.brief)
        if len(missed) == 1:
            why = f" — {missed[0][1].brief}" if missed[0][1].brief else ""
            return f"Not fixed: the {cases(1)} still misses{why}" + ("" if not broken else f"; {broke}")
        common = briefs.most_common(1)
        why = f" — {common[0][1]} {common[0][0]}" if common else ""
        still = f"Not fixed: all {len(missed)} {cases(len(missed))} still miss{why}"
        return still + ("" if not broken else f"; {broke}")

    @staticmethod
    def _order(run: KeptRun) -> str:
        """The order a run was walked in, as ``--policy`` writes it (``best-first@alpha=0.7``)."""
        return policy_text(run.settings.policy, run.settings.alpha)

    def _figures(self, pairs: list[Pair]) -> list[str]:
        count = len(pairs)
        then, now = self.on_both()
        fixed, broken = self.flipped()

        def delta(after: int, before: int) -> str:
            return f"{after}/{count} (was {before}/{count}, {after - before:+d})"

        precision = "—"
        if then.precision is not None and now.precision is not None:
            precision = (f"{now.precision:.0%} (was {then.precision:.0%}, "
                         f"{(now.precision - then.precision) * 100:+.0f} points)")
        lines = [
            f"  hit        {delta(now.hits, then.hits)}",
            f"  hit@3      {delta(now.hits_at_3, then.hits_at_3)}",
            f"  precision  {precision}",
            f"Fixed ({len(fixed)}): missed then, hit now",
        ]
        lines += [visible(f"  {after.id}  was: {before.miss or 'missed'}") for before, after in fixed]
        lines.append(f"Broken ({len(broken)}): hit then, missed now")
        lines += [visible(f"  {after.id}  now: {after.miss or 'missed'}") for before, after in broken]
        return lines

