"""The one way from a model id to a ready navigator (:func:`resolve_navigator`), for the explorer, the CLI,
``serve`` and the evaluation; and the one rule for sharing a navigator across threads (:func:`shared_across_threads`).
"""

from __future__ import annotations

from pathlib import Path

from core import TreeNavigator, TreeNavigatorError, TreeNavigatorRegistry

from .errors import NavigatorConfigError, NavigatorNeedsAPerson, NavigatorReadsAFile

__all__ = ["files_read_by", "resolve_navigator", "shared_across_threads"]


def files_read_by(model: str | None) -> tuple[Path, ...]:
    """The files on this machine that the navigator of ``model`` reads: its script or trace, a ``py:`` navigator's
    source, a local model's file, the prompt files of its options (its provider's ``files_read``). Nothing is
    read or checked here, and a model no provider takes reads nothing: it is refused on its own elsewhere. Output
    files are checked against these (:mod:`explorer.outputs`)."""
    if not model:
        return ()
    try:
        navigator = TreeNavigatorRegistry().resolve(model)
    except (TreeNavigatorError, ValueError):
        return ()
    files_read = getattr(navigator, "files_read", None)
    return tuple(files_read(model)) if callable(files_read) else ()


def resolve_navigator(model: str, *, headless: bool = False, allow_files: bool = True,
                      reuse: TreeNavigator | None = None) -> TreeNavigator:
    """The one way from a model id to a ready navigator, for the explorer, the CLI, ``serve`` and the evaluation.

    The registry finds the provider; then ``headless`` refuses one that needs a person at the keyboard
    (``manual:``: walks nobody steps through cannot wait for one), ``allow_files=False`` refuses a model that
    names a file on this machine (``script:PATH``, ``replay:PATH``, ``local:PATH``) before anything is read, and
    the provider checks the model (reads its script or trace, checks its settings) so that a bad one is one clear
    line now instead of a failure in the middle of a walk. Anything wrong raises :class:`NavigatorConfigError`,
    whose message says which model and what to do.

    The navigator is made from the model id alone, the same in every program: what a program has for it (the
    manual navigator's desk, a local model's listeners, the folder its answers are cached in) is in the program's
    ``Wiring`` (:mod:`explorer.walks.wiring`), whose ``wire`` hands it over next. A navigator no program wires
    caches where the user's environment says (:mod:`.folders`).

    ``reuse``: a navigator already made (a walk's own, with its connections) to return instead of the new one
    when it is of the provider's class, asks ``model`` and may be shared across threads. It is returned only once
    every check above has passed: a navigator at hand never lets a model id skip the rules.
    """
    try:
        navigator = TreeNavigatorRegistry().resolve(model)
    except (TreeNavigatorError, ValueError) as exc:
        raise NavigatorConfigError(f"navigator {model!r}: {' '.join(str(exc).split())}") from None
    if headless and getattr(navigator, "needs_a_person", False):
        raise NavigatorNeedsAPerson(f"navigator {model!r} needs a person at the keyboard; choose another navigator "
                                   "for walks nobody steps through")
    reads_file = getattr(navigator, "reads_file", None)
    if not allow_files and callable(reads_file) and reads_file(model):
        raise NavigatorReadsAFile(f"navigator {model!r} reads a file on this machine, and files are off in this "
                                  "session; choose a navigator that names no file")
    check = getattr(navigator, "check_model", None)
    if callable(check):
        try:
            check(model)
        except NavigatorConfigError:
            raise  # the provider's own line names the file and the place in it
        except (TreeNavigatorError, ValueError) as exc:
            raise NavigatorConfigError(f"navigator {model!r}: {' '.join(str(exc).split())}") from None
    if (reuse is not None and isinstance(reuse, type(navigator)) and reuse.supports(model)
            and shared_across_threads(reuse)):
        return reuse
    return navigator


def shared_across_threads(navigator: TreeNavigator) -> bool:
    """The one rule for walks run on many threads at once (an evaluation, a stability run): they share one
    navigator unless it says otherwise. Every navigator that ships keeps either no state between calls or
    state behind a lock (one HTTP client, a read-only script), so it is shared; a provider that cannot be
    shared sets ``shared_across_threads = False``, and each thread then resolves its own."""
    return bool(getattr(navigator, "shared_across_threads", True))
