"""Keeping and resuming runs on the evaluation screen (``ctrl+s``, ``R``), as ``eval --save-run FILE`` keeps a run
(:func:`~explorer.walks.evaluation.keep_run`) and ``eval --resume FILE`` resumes one.

``ctrl+s`` keeps what each side holds so far: a run not over (cancelled, or still walking) is kept as a *partial*
run that says which questions it holds. With two sides it keeps both: A, the original, as the baseline
(``small-baseline.run.json``) and B, the variant, as the candidate, named by its prompt variant
(``small-v2.run.json``; ``small-candidate.run.json`` with none). A kept run is the *was* side of a later comparison
(``o``, ``eval --against``). ``R`` resumes a kept run on the side that walks with its model and settings: the questions
it holds are kept, and only the others are walked.

Every path goes through the one rule for every file written (:mod:`explorer.outputs`): never over the question set,
its corpus, a navigator's file, or a kept run read on this screen (opened with ``o``, resumed with ``R``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...corpora import Corpus
from ...corpora.questions import QuestionSet
from ...navigators.prompt_variants import model_label, variant_name
from ...numbers import counted
from ...outputs import Ledger, Output, Read, existing, free_name, refused, same_file
from ...safe_text import visible
from ...walk_settings import MapRef, WalkSettings
from ...walks.evaluation import (
    KeptRun,
    QuestionOutcome,
    RunError,
    Side,
    check_resumable,
    held_outcomes,
    keep_run,
)
from ...walks.evaluation.kept_run import check_same_map, file_sha256, same_map
from ..widgets.kept_run_panel import open_kept_run
from .prompt import PromptScreen
from .save_prompt import ASK_AGAIN, model_reads

BASELINE = "baseline"
"""What A's run is called when both sides are kept."""
CANDIDATE = "candidate"
"""What B's run is called when both sides are kept and B asks with no prompt variant."""
SUFFIX = ".run.json"


def stem_of(questions_path: Path) -> Path:
    """``/sets/small`` for ``/sets/small.questions.yaml``: what a kept run's name begins with. A check set's
    (``handbook.check.questions.yaml``) is ``handbook.check``: its runs are not named as the full set's are."""
    name = questions_path.name
    for suffix in (".questions.yaml", ".questions.yml", ".yaml", ".yml"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return questions_path.with_name(name[: -len(suffix)])
    return questions_path.with_name(name.split(".", 1)[0])


def single_path(stem: Path, model: str) -> Path:
    """One side kept: ``small.run.json``, or ``small-v2.run.json`` for a model that asks with the prompt variant v2."""
    variant = variant_name(model)
    return stem.with_name(f"{stem.name}-{variant}{SUFFIX}" if variant else f"{stem.name}{SUFFIX}")


def pair_paths(stem: Path, candidate: str) -> dict[Side, Path]:
    """Both sides kept: ``small-baseline.run.json`` (A) and ``small-v2.run.json`` (B, by its prompt variant)."""
    name = variant_name(candidate)
    name = name if name and name != BASELINE else CANDIDATE
    return {Side.A: stem.with_name(f"{stem.name}-{BASELINE}{SUFFIX}"), Side.B: stem.with_name(f"{stem.name}-{name}"
                                                                                             f"{SUFFIX}")}


def unread_stem(stem: Path, paths: Sequence[Path], read: Sequence[Path]) -> Path:
    """``stem``, or ``stem-2``, ``stem-3``… when a path it names is a kept run read here (never written over)."""
    def named(candidate: Path) -> list[Path]:
        return [candidate.with_name(candidate.name + path.name.removeprefix(stem.name)) for path in paths]

    candidate, number = stem, 1
    while any(same_file(path, kept) for path in named(candidate) for kept in read):
        number += 1
        candidate = stem.with_name(f"{stem.name}-{number}")
    return candidate


def refusal(outputs: Sequence[Output], ledger: Ledger, models: Sequence[str]) -> str | None:
    """Why the runs cannot be kept in ``outputs``, in one line (``None``: they can), by the one gate for every file
    written (:mod:`explorer.outputs`): never over what the program read (its ``ledger``: the question set walked,
    its corpus, a kept run read here with ``o`` or ``R``, a walk's trace, what a check set is built from), a file
    the navigators of ``models`` read, or one another."""
    reads = model_reads(ledger, *models)
    for number, output in enumerate(outputs):
        problem = refused(output, reads, doing="save the run", example="run.json", others=outputs[:number])
        if problem is not None:
            return problem
    return None


def kept_words(kept: KeptRun) -> str:
    """What a run kept says of itself: `` (partial: holds 2 of 4 questions (a, b); R resumes it)`` or ``""``."""
    return f" ({kept.holding_words()}; R resumes it, as eval --resume does)" if kept.partial else ""


def side_for(kept: KeptRun, models: Mapping[Side, str],
             maps: Mapping[Side, MapRef | None] | None = None) -> Side | None:
    """The side that walks with the kept run's model id (and map variant, when the sides' ``maps`` are given: the
    original map against a variant); ``None``: none does."""
    return next((side for side, model in models.items() if model == kept.navigator
                 and (maps is None or same_map(kept, maps.get(side)))), None)


def keep_prompt(questions_path: Path, models: Mapping[Side, str], read: Sequence[Path],
                ledger: Ledger) -> PromptScreen[dict[Side, Path]]:
    """Ask where to keep the runs: one side's path (``small.run.json``), or with two sides the path both names begin
    with (``small`` for ``small-baseline.run.json`` and ``small-v2.run.json``); a path the one rule refuses is said
    under the field (:func:`refusal`), and one that exists is said, Enter again on it replacing it. Offered first: a
    name that writes over no kept run read here, nor any file there."""
    stem = stem_of(questions_path)

    def paths(text: str) -> dict[Side, Path]:
        typed = Path(text.strip()).expanduser()
        return {Side.A: typed} if len(models) == 1 else pair_paths(typed, models[Side.B])

    def checked(text: str) -> dict[Side, Path]:
        if not text.strip():
            raise ValueError("Type the path of the run file." if len(models) == 1
                             else "Type the path the two run files begin with.")
        found = paths(text)
        roles = {Side.A: "the baseline run", Side.B: "the candidate run"} if len(found) > 1 else {Side.A: "the run"}
        problem = refusal([Output(roles[name], path) for name, path in found.items()], ledger, list(models.values()))
        if problem is not None:
            raise ValueError(problem)
        return found

    def confirm(text: str) -> str | None:
        there = [existing(Output("the run", path), then=ASK_AGAIN) for path in paths(text).values()]
        return next((line for line in there if line is not None), None)

    if len(models) == 1:
        first = single_path(stem, models[Side.A])
        offered = single_path(unread_stem(stem, [first], read), models[Side.A])
        return PromptScreen(visible(f"Keep the run of {model_label(models[Side.A])} (as eval --save-run keeps it) in"),
                            str(free_name(offered)), read=checked, confirm=confirm)
    stem = unread_stem(stem, list(pair_paths(stem, models[Side.B]).values()), read)
    a, b = (path.name.removeprefix(stem.name) for path in pair_paths(stem, models[Side.B]).values())
    return PromptScreen(visible(f"Keep both runs: A {model_label(models[Side.A])} as the baseline in PATH{a}, B "
                                f"{model_label(models[Side.B])} as the candidate in PATH{b} (as eval --save-run keeps "
                                "each). PATH"), str(stem), read=checked, confirm=confirm)


def keep_sides(paths: Mapping[Side, Path], questions_path: Path, corpus: Corpus,
               runs: Mapping[Side, tuple[WalkSettings, Sequence[QuestionOutcome | None]]],
               ledger: Iterable[Read] = (), corpora: Mapping[Side, Corpus] | None = None) -> dict[Side, KeptRun]:
    """Keep each side's run at its path, whole or partial, through the one gate (never over what ``ledger`` holds;
    a file there is replaced: the prompt asked); ``OSError`` when one cannot be written. ``corpora``: the corpus a
    side walked when the sides differ by map (its kept run names the map)."""
    sha256 = file_sha256(questions_path)
    kept: dict[Side, KeptRun] = {}
    for name, path in paths.items():
        settings, outcomes = runs[name]
        walked = (corpora or {}).get(name, corpus)
        keep_run(path, questions_path, walked, settings, outcomes, ledger)
        kept[name] = KeptRun.of(str(path), settings, sha256, walked, outcomes)
    return kept


def kept_message(kept: Mapping[Side, KeptRun]) -> str:
    """What the screen says once the runs are kept: where, as what, and whether each is partial."""
    if len(kept) == 1:
        (one,) = kept.values()
        return (f"Kept the run of {one.label} in {one.path}{kept_words(one)}: o on a later evaluation, or eval "
                f"--against {one.path}, compares with it.")
    a, b = kept[Side.A], kept[Side.B]
    return (f"Kept both runs: A {a.label} as the baseline in {a.path}{kept_words(a)}, B {b.label} as the candidate "
            f"in {b.path}{kept_words(b)}. o on a later evaluation, or eval --against, compares a run with either "
            "(was → now).")


def kept_toast(kept: Mapping[Side, KeptRun]) -> str:
    """The toast once the runs are kept: one short line (the whole of :func:`kept_message` stays in the hint
    line above the footer, where it covers nothing)."""
    if len(kept) == 1:
        (one,) = kept.values()
        return f"Kept the run in {Path(one.path).name}{' (partial)' if one.partial else ''}."
    return f"Kept both runs: A in {Path(kept[Side.A].path).name}, B in {Path(kept[Side.B].path).name}."


@dataclass(frozen=True)
class Resumed:
    """A kept run to resume on ``side``, and the outcomes it holds by question number."""

    side: Side
    kept: KeptRun
    held: dict[int, QuestionOutcome]

    def words(self, total: int) -> str:
        left = total - len(self.held)
        doing = f"walking the {left} it does not hold" if left else "it holds every question: nothing to walk"
        return (f"Resuming {self.side} {self.kept.label} from {self.kept.path}: it holds {len(self.held)} of "
                f"{counted(total, 'question')}; {doing}.")


def resume_prompt(questions: QuestionSet, corpus: Corpus, settings: WalkSettings, models: Mapping[Side, str],
                  offered: Sequence[str], maps: Mapping[Side, MapRef | None] | None = None) -> PromptScreen[Resumed]:
    """Ask for a kept run to resume: of this set and corpus, kept with the model id of a side (and its map variant:
    ``maps``, each side's, by default the corpus's) and these settings (said under the field otherwise)."""
    maps = maps if maps is not None else dict.fromkeys(models, corpus.map)

    def read(text: str) -> Resumed:
        kept = open_kept_run(text, questions.path, corpus)
        side = side_for(kept, models, maps)
        if side is None:
            walks = " and ".join(f"{name} {model_label(model)}" for name, model in models.items())
            raise RunError(visible(f"{kept.path}: kept with {kept.label}; this evaluation walks {walks}: resume it "
                                   f"with eval --resume {kept.path}"))
        check_resumable(kept, settings.but(model=models[side]))
        check_same_map(kept, maps.get(side))
        return Resumed(side, kept, held_outcomes(kept, questions.questions))

    return PromptScreen("Resume a kept run: the questions it holds are kept, only the others walked (on the side "
                        "with its model)", offered[0] if offered else "", read=read, suggestions=offered)
