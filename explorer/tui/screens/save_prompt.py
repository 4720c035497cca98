"""The dialog every save of the screen asks through (``ctrl+s``, ``ctrl+e``, ``H``, a kept run, a sweep page): the
one gate for every file written (:mod:`explorer.outputs`) said under the field as a path is typed. A path over what
the program read (its ledger) is refused; a path that exists is said, and Enter again on it replaces it; the name
offered first is a free one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...navigators import files_read_by
from ...outputs import Ledger, Output, Read, existing, free_name, overwrites, refused
from .prompt import PromptScreen

ASK_AGAIN = "Enter again replaces it, or type another name"
"""What a save prompt says under a path that exists (:func:`explorer.outputs.existing`)."""


def model_reads(ledger: Ledger, *models: str) -> list[Read]:
    """What ``ledger`` holds, and the files the navigators of ``models`` read (a walk not yet in the list)."""
    return ledger.reads(*(Read(f"the file {model} reads", path) for model in dict.fromkeys(models)
                          for path in files_read_by(model)))


def save_prompt(title: str, offered: Path, output: str, reads: Callable[[], list[Read]], *, doing: str,
                example: str, made: Path | None = None) -> PromptScreen[str]:
    """Ask where to write ``output`` (``"the trace"``), offering ``offered`` (or, when it is there, a free name
    beside it): a path the gate refuses is said under the field; one that exists is said, and Enter again on it
    replaces it (the prompt hands back the path then). ``made``: a folder the save makes when it is missing."""
    def check(value: str) -> str | None:
        typed = Output(output, Path(value).expanduser())
        if made is not None and typed.path.parent == made and not made.exists():
            return overwrites(typed, reads())
        return refused(typed, reads(), doing=doing, example=example)

    def confirm(value: str) -> str | None:
        return existing(Output(output, Path(value).expanduser()), then=ASK_AGAIN)

    return PromptScreen(title, str(free_name(offered)), check=check, confirm=confirm)
