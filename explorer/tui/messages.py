"""The explorer's messages: small, and tagged with a walk's id where a stale one must be dropped.

Workers post the first four to the walk screen. Screens answer upward with the rest: the evaluation screen
asks for a question's walk to be shown (``OpenWalk``) or two walks compared (``CompareWalks``), the walk
screen asks for a question set to be evaluated (``EvaluateQuestions``); the app routes each. No screen calls
the app's methods. The loading screen's thread posts the last three while a corpus loads; the app opens the walk
screen on the corpus loaded.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.message import Message

from core import TreeNavigator

from ..corpora import Corpus
from ..corpora.questions import QuestionSet
from ..navigators.llm.llama_server import LocalModelStatus
from ..navigators.manual import PendingDecision
from ..walk_settings import WalkSettings
from ..walks.history import WalkHistory
from ..walks.session import SessionEnded, SessionEvent


@dataclass
class WalkEventArrived(Message):
    """A walk's session emitted an event: its record (the walk's id, the event's number, whether it was forced)."""

    arrived: SessionEvent


@dataclass
class WalkEnded(Message):
    """A walk's session is over: its record (the walk's id, how it ended, the error when it failed)."""

    ended: SessionEnded


@dataclass
class DecisionRequested(Message):
    """The manual navigator waits for the person at the keyboard."""

    pending: PendingDecision


@dataclass
class LocalModelChanged(Message):
    """A local model's server is loading, ready, failed or stopped (told on the thread that started it)."""

    status: LocalModelStatus


@dataclass
class OpenWalk(Message):
    """Show ``history`` (a walk made elsewhere: an evaluation's) at ``step`` (``None``: its end), with the nodes a
    question expects marked, ``verdict`` beside it (why its question was missed) and ``note`` said."""

    history: WalkHistory
    step: int | None
    expected: frozenset[str] = field(default_factory=frozenset)
    note: str = ""
    verdict: str = ""


@dataclass
class CompareWalks(Message):
    """Show walk ``a`` and walk ``b`` side by side, with the nodes a question expects marked."""

    a: WalkHistory
    b: WalkHistory
    expected: frozenset[str] = field(default_factory=frozenset)


@dataclass
class EvaluateQuestions(Message):
    """Open the evaluation screen on ``questions`` with ``settings`` and ``navigator`` (and ``compare``, a second
    navigator by its model, when given); ``corpora``: the corpus each side walks (A, B), when they differ (the
    original map against a map variant, ``E``); else both walk the walk screen's."""

    questions: QuestionSet
    settings: WalkSettings
    navigator: TreeNavigator
    compare: tuple[str, TreeNavigator] | None = None
    corpora: tuple[Corpus, Corpus] | None = None


@dataclass
class CorpusLoadProgressed(Message):
    """The loading screen's thread: how far the corpus load has got (:mod:`explorer.corpora.progress`)."""

    stage: str
    done: int
    total: int | None


@dataclass
class CorpusLoaded(Message):
    """The loading screen's thread: the corpus is loaded; the app opens the walk screen on it."""

    corpus: Corpus


@dataclass
class CorpusLoadFailed(Message):
    """The loading screen's thread: the corpus cannot be loaded, said in one line (the loader's own)."""

    problem: str
