"""Evaluate with this prompt: a prompt variant against the model id it was made from, over a question set — from the
``W`` dialog (``ctrl+t``) and, with ``E``, from a walk made with a variant (a re-walk with a prompt, or a walk
continued live with ``prompt=``).

A short picker asks for the question set: first the check set (the cases kept with ``K``, the misses and flips of
the last kept run, the walk's own question: :mod:`explorer.walks.evaluation.check_set`), written beside the corpus
when it is chosen; one key away (↓) the one open in the evaluation screen and the corpus's own (``X.questions.yaml``
beside ``X.yaml``); or a path typed. The evaluation screen then walks it with the original
model id as A and the variant as B, the questions that flipped first (fixed, then broken); the response cache
makes the original side free when it was walked before.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from core import TreeNavigator

from ...corpora import Corpus, CorpusError
from ...corpora.questions import fit_problem, load_questions, own_questions
from ...navigators import NavigatorConfigError, resolve_navigator
from ...navigators.prompt_variants import model_label, without_variant
from ...safe_text import visible
from ...walk_settings import WalkSettings
from ...walks.evaluation import check_set
from ...walks.history import WalkHistory
from ...walks.session import Wiring
from ...walks.walk_list import Walk
from ..messages import EvaluateQuestions
from ..say import FILES_OFF
from ..screens.prompt import PromptScreen
from .next_walk import written_check
from .shown import Grounds, Part


def original_of(history: WalkHistory) -> str | None:
    """The model id a walk made with a prompt variant came from: the walk it was made from's, when that one asks
    with no variant, else its own without the prompt files; ``None`` when the walk asks with no variant."""
    stripped = without_variant(history.settings.model)
    if stripped is None:
        return None
    parent = history.parent
    if parent is not None and without_variant(parent.settings.model) is None:
        return parent.settings.model
    return stripped


def navigator_for(walk: Walk, model: str, wiring: Wiring, *, allow_files: bool) -> TreeNavigator:
    """The navigator for ``model``, through the one resolver with the session's rules (files off stay off): the
    walk's own when it can ask ``model``, else a new one, wired with the explorer's desk and listeners
    (``NavigatorConfigError`` when there is none)."""
    found = resolve_navigator(model, headless=True, allow_files=allow_files, reuse=walk.navigator)
    return found if found is walk.navigator else wiring.wire(found)


class EvaluatingVariant(Part):
    """Evaluate a variant (from the ``W`` dialog, or ``E`` on a walk made with one) over a question set of the
    corpus; navigators come through :func:`navigator_for` with the grounds' wiring. ``open_set``: the question set
    an evaluation open behind the screen walks (``None``: none is open), handed over, not reached for."""

    def __init__(self, grounds: Grounds, *, open_set: Callable[[], Path | None]) -> None:
        super().__init__(grounds)
        self.open_set = open_set

    def choices(self) -> list[str]:
        """The question sets the picker offers: the open one (an evaluation behind the screen), the corpus's own."""
        open_set = self.open_set()
        found = [str(open_set)] if open_set is not None else []
        own = str(own_questions(self.corpus.path))
        return found + ([own] if own not in found else [])

    def ask_shown(self, walk: Walk) -> None:
        """``E`` on a walk made with a variant: its model id against the original."""
        original = original_of(walk.history)
        if original is not None:
            self.ask(walk, walk.history.settings, original, walk.history.settings.model)

    def ask_map(self, walk: Walk) -> None:
        """``E`` with a map variant in use (``M``, ``--map``): the original map (A) against the variant (B), the
        walk's navigator and settings on both sides."""
        corpus = self.corpus
        if corpus.map is None:
            return
        model = walk.history.settings.model
        names = (f"{model_label(model)} with the original map", f"{model_label(model)} with map {corpus.map.name}")
        self.ask(walk, walk.history.settings, model, model, corpora=(corpus.original, corpus), names=names)

    def ask(self, walk: Walk, settings: WalkSettings, original: str, variant: str, *,
            corpora: tuple[Corpus, Corpus] | None = None, names: tuple[str, str] | None = None) -> None:
        """Pick a question set, then evaluate ``variant`` against ``original`` over it with ``settings`` (with
        ``corpora``, A on the first and B on the second: a map variant against the original map; ``names``: the
        sides' labels, by default their models')."""
        if not self.allow_files:
            self.say(FILES_OFF, severity="warning", timeout=4)
            return
        choices = self.choices()
        # Each side by its label (``local:smollm2 with prompt v2``): the files are in the evaluation's detail.
        against, named = names if names is not None else (model_label(original), model_label(variant))
        title = (f"Evaluate {named} against {against} over a question set (the open one, the corpus's own, or type "
                 "a path)")
        initial = choices[0]
        check = check_set(self.corpus, walk.history.settings.query)
        if check.questions:  # the check set first, written when it is chosen; the full sets one key away (↓)
            title = (f"Evaluate {named} against {against} on the check set, {check.words()} (↓ the corpus's full "
                     "set, or type a path)")
            initial = str(check.path)
        title = visible(title)  # model ids and file names: their control characters shown, never sent

        def picked(value: str | None) -> None:
            path = Path(value).expanduser() if value else None
            chosen = path is not None and path == check.path
            problem = written_check(check, self.corpus, self.wiring.ledger) if chosen else None
            if problem is not None:
                self.say(problem, title="Cannot walk the check set", severity="error", timeout=8)
            elif path is not None:
                self.evaluate(walk, settings, path, original, variant, corpora)

        self.stage.app.push_screen(PromptScreen(
            title, initial, placeholder="corpus.questions.yaml", suggestions=choices,
            check=lambda v: None if v.strip() else "Type the path of a question set."), picked)

    def evaluate(self, walk: Walk, settings: WalkSettings, path: Path, original: str, variant: str,
                 corpora: tuple[Corpus, Corpus] | None = None) -> None:
        """The evaluation screen on the question set at ``path``: ``original`` as A, ``variant`` as B (each on its
        corpus of ``corpora`` when given)."""
        if not path.is_file():
            where = ("no question set beside the corpus" if path == own_questions(self.corpus.path)
                     else "no such question set")
            self.say(f"{path}: {where}; evaluate with --compare '{variant}'", severity="warning", timeout=8)
            return
        try:
            questions = load_questions(path)
            problem = fit_problem(questions, self.corpus, named_corpus=True)
            if problem is None:
                a = navigator_for(walk, original, self.wiring, allow_files=self.allow_files)
                b = (navigator_for(walk, variant, self.wiring, allow_files=self.allow_files) if corpora is None
                     else self.wiring.wire(resolve_navigator(variant, headless=True, allow_files=self.allow_files)))
                self.stage.app.post_message(EvaluateQuestions(questions, settings.but(model=original), a, (variant, b),
                                                              corpora=corpora))
                return
        except (CorpusError, OSError, NavigatorConfigError) as exc:
            problem = str(exc)
        self.say(f"Evaluate with {variant}: {problem}", severity="error", timeout=8)
