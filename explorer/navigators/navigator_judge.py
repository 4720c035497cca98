"""A navigator as the judge of the misses (``eval --judge openai:MODEL``): an LLM, asked for a score per candidate
(``scores=on``), or any navigator that scores, ranks what a navigator was shown and what lies beneath.

:class:`NavigatorJudge` is a :class:`~.judge.Judge` whose :meth:`~NavigatorJudge.shown` and
:meth:`~NavigatorJudge.beneath` are one navigator call each: the candidates offered with their title and summary,
then with the text beneath each (its content and its subtree's titles, summaries and contents, cut to
:data:`BENEATH_CHARS`) in place of the summary. A flat search over every node by an LLM would be a call per node: the
fair one is a rerank, so :meth:`~NavigatorJudge.flat` ranks the :data:`RERANKED` best nodes of the offline judge's
flat search (the bundled embeddings) by one call, the rest after them in the offline order; the sentence that matched
beneath a node is the offline judge's. Every call is counted (:attr:`NavigatorJudge.calls`), so that its cost is
said. A navigator answering no score ranks what it selected first, in its order.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from core import CancellationToken, NavigatorChoice, NavigatorRequest, NodeView, TreeNavigator

from ..corpora import Corpus
from .errors import NavigatorConfigError, NavigatorReadsAFile
from .judge import JUDGES, Judge, default_judge, judge_for
from .resolver import resolve_navigator

__all__ = ["BENEATH_CHARS", "NO_JUDGE", "RERANKED", "SCORING", "NavigatorJudge", "check_judge", "judge_named",
           "judge_off", "scored_model"]

BENEATH_CHARS = 1_500
"""Characters of the text beneath a candidate sent as its summary (the start of its subtree's text)."""
RERANKED = 10
"""Nodes of the offline flat search reranked by the navigator, in one call."""
SCORING = ("openai:", "ollama:", "vllm:", "local:")
"""The model ids asked for scores (``@scores=on`` added when not given): the LLM navigators."""


def scored_model(model: str) -> str:
    """``model`` asking for a score per candidate: ``openai:m`` → ``openai:m@scores=on``, an LLM's options kept
    (``openai:m@temperature=0`` → ``openai:m@temperature=0,scores=on``); another navigator's id as it is."""
    if not model.startswith(SCORING) or "scores=" in model.partition("@")[2]:
        return model
    return f"{model},scores=on" if "@" in model else f"{model}@scores=on"


class NavigatorJudge(Judge):
    """``navigator`` (as ``model`` names it) judging ``corpus``, the ``offline`` judge for the flat search's first
    ranking and the matched sentence (see the module)."""

    kind = "navigator"

    def __init__(self, corpus: Corpus, navigator: TreeNavigator, model: str, offline: Judge) -> None:
        super().__init__(corpus)
        self.navigator = navigator
        self.model = model
        self.name = model
        self.offline = offline
        self.calls = 0
        """The navigator calls made so far (what the judge cost)."""
        self._lock = threading.Lock()

    def same_as(self, model: str) -> bool:
        """Whether ``model`` is this judge's own navigator (the same LLM judging its own choices)."""
        return model == self.model or scored_model(model) == self.model

    def _ask(self, query: str, views: Sequence[NodeView]) -> list[float]:
        """One call: each view's score (the navigator's, else by the order it selected; 0 for the others)."""
        request = NavigatorRequest(query, self.model, None, tuple(views), len(views), CancellationToken())
        with self._lock:
            self.calls += 1
        choice = self.navigator.choose(request)
        if not isinstance(choice, NavigatorChoice):  # a navigator may answer ids alone
            choice = NavigatorChoice(tuple(choice))
        scores = dict(choice.scores or {})
        if not scores:
            chosen = list(dict.fromkeys(choice.selected))
            scores = {node: 1.0 - number / len(chosen) for number, node in enumerate(chosen)}
        return [float(scores.get(view.id, 0.0)) for view in views]

    def shown(self, query: str, ids: Sequence[str]) -> list[float]:
        return self._ask(query, [NodeView(node, *self.shown_text(node)) for node in ids])

    def _beneath_text(self, node: str) -> str:
        parts: list[str] = []
        size = 0
        stack = [node]
        while stack and size < BENEATH_CHARS:
            current = stack.pop()
            title, summary = self.shown_text(current)
            for text in ((title, summary) if current != node else ()) + (self.content_of(current),):
                if text:
                    parts.append(text)
                    size += len(text) + 1
            stack.extend(reversed(self.index.child_ids(current)))
        return "\n".join(parts)[:BENEATH_CHARS]

    def beneath(self, query: str, ids: Sequence[str]) -> list[float]:
        return self._ask(query, [NodeView(node, self.corpus.title_of(node), self._beneath_text(node))
                                 for node in ids])

    def flat(self, query: str) -> list[tuple[str, float]]:
        first = self.offline.flat(query)
        top = [node for node, _ in first[:RERANKED]]
        if not top:
            return first
        views = [NodeView(node, self.corpus.title_of(node),
                          f"{self.corpus.summary_of(node)}\n{self.content_of(node)}"[:BENEATH_CHARS]) for node in top]
        scores = self._ask(query, views)
        reranked = sorted(range(len(top)), key=lambda i: (-scores[i], i))
        return [(top[i], scores[i]) for i in reranked] + [(node, 0.0) for node, _ in first[RERANKED:]]

    def texts(self, query: str, texts: Sequence[str]) -> list[float]:
        return self.offline.texts(query, texts)


NO_JUDGE = "none"
"""``--judge none``: no verdicts (:func:`judge_off`)."""


def judge_off(name: str | None) -> bool:
    """Whether ``--judge`` ``name`` turns verdicts off (``none``)."""
    return name is not None and name.strip().lower() == NO_JUDGE


def check_judge(name: str, allow_files: bool = True) -> None:
    """Nothing when ``name`` names a judge (``none``, ``semantic:default``, ``lexical:default``, or a navigator
    that scores: resolved, not yet asked); :class:`NavigatorConfigError` (one line, the judges there are) when it
    names none. Checked before a corpus is loaded (the explorer loads a PDF once open). With files off
    (``allow_files=False``, ``--no-files``) a judge that names a file on this machine (``script:PATH``,
    ``replay:PATH``, ``local:PATH``) is refused as the navigator would be, before the file is read."""
    if not judge_off(name):
        _scoring(name, allow_files)


def _scoring(name: str, allow_files: bool = True) -> tuple[str, TreeNavigator] | None:
    """``None`` for one of :data:`~.judge.JUDGES`, else the navigator ``name`` names asked for scores (its model id
    and it); :class:`NavigatorConfigError` for a judge there is not, or one that reads a file when files are off."""
    wanted = name.strip()
    full = wanted if ":" in wanted else f"{wanted}:default"
    if full in JUDGES:
        return None
    model = scored_model(wanted)
    try:
        return model, resolve_navigator(model, headless=True, allow_files=allow_files)
    except NavigatorReadsAFile:
        raise NavigatorReadsAFile(f"judge {name!r} reads a file on this machine, and files are off in this session; "
                                  "choose a judge that names no file (semantic, lexical, an LLM's such as "
                                  "openai:MODEL, or none)") from None
    except NavigatorConfigError as exc:
        known = "; ".join(f"{judge} ({what})" for judge, what in JUDGES.items())
        why = f": {exc}" if model.startswith(SCORING) else ""  # an LLM's own problem (its options, its file)
        raise NavigatorConfigError(f"no judge is named {name!r}: a judge is one of {known}; or a navigator that "
                                   f"scores (openai:MODEL){why}") from None


def judge_named(name: str | None, corpus: Corpus,
                wire: Callable[[TreeNavigator], TreeNavigator] = lambda navigator: navigator,
                told: Callable[[str], None] | None = None) -> Judge:
    """The judge ``name`` names, bound to ``corpus`` (``None``: the default, :func:`~.judge.default_judge`, BM25
    when the embeddings cannot load, which ``told`` hears): ``semantic:default`` or ``lexical:default``
    (:func:`~.judge.judge_for`), else a navigator's model id (``openai:MODEL``, asked for scores): a
    :class:`NavigatorJudge` over the default judge, its navigator wired by ``wire`` (the program's response cache).
    :class:`NavigatorConfigError` (one line) for a judge there is not; ``none`` (:func:`judge_off`) is the caller's
    to honour."""
    if name is None:
        return default_judge(corpus, told)
    scoring = _scoring(name)
    if scoring is None:
        wanted = name.strip()
        return judge_for(wanted if ":" in wanted else f"{wanted}:default", corpus)
    model, navigator = scoring
    return NavigatorJudge(corpus, wire(navigator), model, default_judge(corpus, told))
