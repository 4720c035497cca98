"""Keep the case (``K`` and the palette): the walk on screen becomes a question of a question set — its query, and
the node the person marks as the right answer (the node under the tree's cursor: put it there with the arrows, or
with ``g``) — appended to the set the person names (by default the corpus's own, ``X.questions.yaml`` beside
``X.yaml``), made when missing, by :func:`~explorer.corpora.questions.keep_question` (it never overwrites an id,
keeps the set's comments and checks the set reads back). The file is written on a thread worker; the screen says
which file and which id, or the one line that says why not. A session with files off refuses it in one line."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from ...corpora.errors import CorpusError
from ...corpora.questions import keep_question, own_questions, sets_beside
from ...safe_text import clip, one_line
from ..say import FILES_OFF
from ..screens.prompt import PromptScreen
from .shown import Grounds, Part


class KeepingCase(Part):
    """``K`` on the walk on screen: asks for the question set and writes to it on a worker; ``marked`` is the node
    the person marks as the right answer (the tree's cursor; ``None``: none)."""

    def __init__(self, grounds: Grounds, *, marked: Callable[[], str | None]) -> None:
        super().__init__(grounds)
        self.marked = marked

    def ask(self) -> None:
        """Take the query of the walk on screen and the node marked, then ask which question set to keep them in."""
        if not self.allow_files:
            self.say(FILES_OFF, severity="warning", timeout=4)
            return
        history = self.view.history
        query = history.settings.query if history is not None else ""
        if not query.strip():
            self.say("No walk to keep yet: walk a query first, then mark the node that answers it on the tree.",
                     severity="warning", timeout=4)
            return
        answer = self.marked()
        if answer is None or answer not in self.corpus.index:
            self.say("Put the tree's cursor on the node that answers the query (g finds one), then press K.",
                     severity="warning", timeout=5)
            return
        default = str(own_questions(self.corpus.path))
        # This corpus's sets only (a set beside it for another corpus is not offered), its own first, made if missing.
        sets = list(dict.fromkeys([default, *(str(q.path) for q in sets_beside(self.corpus))]))

        def keep(value: str | None) -> None:
            if value:
                self.keep(Path(value).expanduser(), query, answer)

        title = (f"Keep the case “{clip(one_line(query), 60)}” → {clip(one_line(answer), 40)} as a question in "
                 "(a question set, made if missing)")
        self.stage.app.push_screen(PromptScreen(title, default, placeholder="corpus.questions.yaml",
                                               suggestions=sets,
                                               check=lambda v: None if v.strip() else "Type the path of a question "
                                               "set."), keep)

    def keep(self, path: Path, query: str, answer: str) -> None:
        """Append the question on a worker; say which file and id it wrote, or why not, in one line."""
        app, corpus = self.stage.app, self.corpus

        def work() -> None:
            tell = partial(app.call_from_thread, self.say)
            try:
                kept = keep_question(path, corpus, query, [answer], reads=self.wiring.ledger)
            except CorpusError as exc:
                tell(one_line(str(exc)), title="Cannot keep the case", severity="error", timeout=8)
                return
            except OSError as exc:
                tell(f"Cannot write {path}: {exc.strerror or exc}", title="Cannot keep the case", severity="error",
                     timeout=8)
                return
            self.wiring.ledger.read("the question set K keeps cases in", path)
            tell(f"Kept question {kept.id!r} in {path.resolve()}: “{one_line(query)}” → {answer}", timeout=6)

        self.stage.run_worker(work, thread=True, group="files", exit_on_error=False)
