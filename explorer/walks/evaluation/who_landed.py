"""Which of two compared walks landed the expected node, in one sentence (``T``'s comparison, ``D`` on an
evaluation's question): ``best-first landed the expected Final pay; depth-first ran out of visits``.

Each walk is named by its order when the two were walked in different orders (``T``), else ``A`` and ``B``; a
walk that did not land an expected node says why in a few words (:meth:`~.misses.Miss.brief`), a walk still
under way that it has not yet."""

from __future__ import annotations

from collections.abc import Collection

from ...corpora import Corpus
from ...corpora.questions import Question
from ...walk_settings import policy_text
from ..compare import Comparison, Landing
from ..history import WalkHistory
from .misses import miss_of

__all__ = ["who_landed"]


def _landed(landings: tuple[Landing, ...], expected: list[str]) -> str | None:
    """The first expected node among ``landings`` (``None``: none)."""
    landed = {landing.node for landing in landings}
    return next((node for node in expected if node in landed), None)


def _why_not(corpus: Corpus, history: WalkHistory, expected: list[str]) -> str:
    """Why ``history`` did not land an expected node, in a few words (``ran out of visits``)."""
    if history.end is None:
        return "has not landed it yet (still walking)"
    question = Question("", history.settings.query, tuple(expected), 0)
    return miss_of(corpus.index, question, history.events, history.end, forced=history.forced).brief()


def who_landed(corpus: Corpus, comparison: Comparison, a: WalkHistory, b: WalkHistory,
               expected: Collection[str]) -> str:
    """Which of ``a`` and ``b`` (compared in ``comparison``) landed an ``expected`` node (see the module); ``""``
    when none of ``expected`` is in the corpus. Plain: titles and ids are corpus text (pass it through
    ``safe_text``)."""
    wanted = sorted(node for node in expected if node in corpus.index)
    if not wanted:
        return ""
    sa, sb = a.settings, b.settings
    names = (policy_text(sa.policy, sa.alpha), policy_text(sb.policy, sb.alpha)) \
        if (sa.policy, sa.alpha) != (sb.policy, sb.alpha) else ("A", "B")
    landed = (_landed(comparison.only_a + comparison.both, wanted),
              _landed(comparison.only_b + comparison.both, wanted))
    title = corpus.title_of(landed[0] or landed[1] or wanted[0])
    if landed[0] is not None and landed[1] is not None:
        return f"both landed the expected {title}"
    if landed[0] is None and landed[1] is None:
        return (f"neither landed the expected {title}: {names[0]} {_why_not(corpus, a, wanted)}; "
                f"{names[1]} {_why_not(corpus, b, wanted)}")
    hit, missed = (0, 1) if landed[0] is not None else (1, 0)
    return f"{names[hit]} landed the expected {title}; {names[missed]} {_why_not(corpus, (a, b)[missed], wanted)}"
