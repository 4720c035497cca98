"""Issue 44 point 3 and issue 45 points 4, 5, 6 and 8 on the screen: the corpus's path typed into every save,
screenshot and export dialog leaves the corpus byte for byte; a save over a file there asks first (Enter again
replaces it); a save over what the explorer read (a question set, a kept run opened with ``o``, what a check set is
built from) is refused under the field. Real files in tmp_path, keys pressed through Pilot."""

from __future__ import annotations

from pathlib import Path

from explorer.corpora import load_corpus
from explorer.trace import read_trace
from explorer.tui.evaluation_screen import EvaluationScreen
from explorer.tui.screens.evaluation_sweep import SweepScreen
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.widgets.kept_run_panel import KeptRunPanel

from ..check_set_helpers import check_set_folder
from .helpers import HANDBOOK_PATH, SIZE, cursor_to, evaluation_open, make_app, typed_into_prompt, wait_for
from .reading import prompt_error

INPUT = "an output must not overwrite an input: choose another file"


def corpus_folder(folder: Path) -> tuple[Path, Path]:
    corpus = folder / "handbook.yaml"
    corpus.write_bytes(HANDBOOK_PATH.read_bytes())
    questions = folder / "handbook.questions.yaml"
    questions.write_text("corpus: handbook.yaml\nquestions:\n  - {id: refunds, query: refunds, expect: "
                         "[refund-delivery]}\n  - {id: sso, query: single sign-on, expect: [single-sign-on]}\n")
    return corpus, questions


async def walked(pilot) -> None:  # type: ignore[no-untyped-def]
    screen = pilot.app.walk_screen
    await wait_for(pilot, lambda: screen.view.history is not None and len(screen.view.history.events) >= 1)
    await pilot.press("c")
    await wait_for(pilot, lambda: screen.view.history.ended)


async def refused_under_the_field(pilot, app, key: str, path: Path, line: str) -> None:  # type: ignore[no-untyped-def]
    below = app.screen
    await typed_into_prompt(pilot, app, key, path)
    await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and prompt_error(app) == line)
    await pilot.press("escape")
    await wait_for(pilot, lambda: app.screen is below)


async def test_the_corpus_typed_into_every_save_screenshot_and_export_dialog_is_left_byte_for_byte(tmp_path):
    corpus, questions = corpus_folder(tmp_path)
    before = {path: path.read_bytes() for path in (corpus, questions)}
    app = make_app("how long do refunds take", corpus=load_corpus(corpus), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await walked(pilot)
        for key, output in (("ctrl+s", "the trace"), ("ctrl+e", "the screenshot"), ("H", "the HTML")):
            await refused_under_the_field(pilot, app, key, corpus, f"{output} {corpus} is the corpus ({corpus}); "
                                                                   f"{INPUT}")
        await cursor_to(pilot, "refund-delivery", "Refund delivery")
        await typed_into_prompt(pilot, app, "K", corpus)
        await wait_for(pilot, lambda: any(n.title == "Cannot keep the case" for n in app.notes))
        screen = await evaluation_open(pilot, app)
        await refused_under_the_field(pilot, app, "ctrl+s", corpus, f"the run {corpus} is the corpus ({corpus}); "
                                                                    f"{INPUT}")
        assert app.screen is screen
        await pilot.press("b")  # a budget sweep, then its page (H)
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        await pilot.press(*"2,3", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SweepScreen) and app.screen.over)
        await refused_under_the_field(pilot, app, "H", corpus, f"the HTML {corpus} is the corpus ({corpus}); {INPUT}")
    assert {path: path.read_bytes() for path in before} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["handbook.questions.yaml", "handbook.yaml"]


async def test_ctrl_s_over_a_file_there_asks_first_and_over_the_question_set_read_is_refused(tmp_path):
    corpus, questions = corpus_folder(tmp_path)
    kept = tmp_path / "handbook.run.json"
    kept.write_text("a run kept earlier (budget 3)\n")
    app = make_app("how long do refunds take", corpus=load_corpus(corpus), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await walked(pilot)
        await typed_into_prompt(pilot, app, "ctrl+s", kept)
        await wait_for(pilot, lambda: prompt_error(app) == f"the trace {kept} exists and would be replaced; Enter "
                                                           "again replaces it, or type another name")
        assert kept.read_text() == "a run kept earlier (budget 3)\n"
        await pilot.press("enter")  # asked, and answered: it is replaced
        await wait_for(pilot, lambda: any(n.message == f"Trace saved to {kept}" for n in app.notes))
        assert read_trace(kept).header.settings.query == "how long do refunds take"
        await evaluation_open(pilot, app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.walk_screen)
        await refused_under_the_field(pilot, app, "ctrl+s", questions, f"the trace {questions} is the question set "
                                                                       f"({questions}); {INPUT}")
    assert questions.read_text().startswith("corpus: handbook.yaml\n")


async def test_h_refuses_to_write_over_a_kept_run_opened_with_o(tmp_path):
    corpus, _ = corpus_folder(tmp_path)
    app = make_app("how long do refunds take", corpus=load_corpus(corpus), start_walk=True)
    kept = tmp_path / "kept.run.json"
    async with app.run_test(size=SIZE) as pilot:
        await walked(pilot)
        screen = await evaluation_open(pilot, app)
        await typed_into_prompt(pilot, app, "ctrl+s", kept)
        await wait_for(pilot, lambda: kept.is_file() and app.screen is screen)
        await typed_into_prompt(pilot, app, "o", kept)
        panel = screen.query_one(KeptRunPanel)
        await wait_for(pilot, lambda: app.screen is screen and panel.kept is not None and panel.kept.path == str(kept))
        text = kept.read_bytes()
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.walk_screen)
        await refused_under_the_field(pilot, app, "H", kept, f"the HTML {kept} is a kept run read here ({kept}); "
                                                             f"{INPUT}")
    assert kept.read_bytes() == text


async def test_the_evaluations_ctrl_s_refuses_what_the_check_set_was_built_from(tmp_path):
    corpus = check_set_folder(tmp_path)
    own, run = tmp_path / "handbook.questions.yaml", tmp_path / "small-candidate.run.json"
    before = {path: path.read_bytes() for path in (own, run)}
    app = make_app("", corpus=load_corpus(corpus))
    async with app.run_test(size=SIZE) as pilot:
        screen = await evaluation_open(pilot, app)  # E offers the check set first: Enter walks it
        assert isinstance(screen, EvaluationScreen) and screen.question_set.path.name == "handbook.check.questions.yaml"
        await refused_under_the_field(pilot, app, "ctrl+s", own, f"the run {own} is a question set the check set is "
                                                                 f"built from ({own}); {INPUT}")
        await refused_under_the_field(pilot, app, "ctrl+s", run, f"the run {run} is a kept run the check set is "
                                                                 f"built from ({run}); {INPUT}")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.walk_screen)
    assert {path: path.read_bytes() for path in before} == before


async def test_h_and_ctrl_s_refuse_the_trace_another_walk_of_the_list_was_read_from(tmp_path):
    """The export's list of files read left out the other walks' traces: H on walk 1 wrote over walk 2's."""
    from explorer.trace import read_trace as read
    from tests.command_line import run_cli

    corpus, _ = corpus_folder(tmp_path)
    traces = [tmp_path / "one.jsonl", tmp_path / "two.jsonl"]
    for path, query in zip(traces, ("refunds", "single sign-on"), strict=True):
        assert run_cli("walk", corpus, query, "--trace", path, columns=None).returncode == 0
    before = [path.read_bytes() for path in traces]
    app = make_app("", corpus=load_corpus(corpus), opened=[read(path) for path in traces])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.walks) == 2 and app.walk_screen.view.walk is not None)
        shown = app.walk_screen.view.walk.number
        other = traces[1] if app.walk_screen.view.history.settings.query == "refunds" else traces[0]
        for key, output in (("H", "the HTML"), ("ctrl+s", "the trace")):
            await refused_under_the_field(pilot, app, key, other, f"{output} {other} is the file walk {3 - shown} "
                                                                  f"was read from ({other}); {INPUT}")
        assert app.walks.number(3 - shown).loaded is None  # its file named from the list: the walk is not read
    assert [path.read_bytes() for path in traces] == before


async def test_the_trace_options_later_walks_never_replace_a_file_there_before_the_session(tmp_path):
    """``--trace FILE`` (the command line checks FILE itself) keeps walk 2 in ``FILE.walk2.jsonl``: one that was
    there before is someone's, and walk 2 goes to a free name beside it."""
    path, there = tmp_path / "auto.jsonl", tmp_path / "auto.walk2.jsonl"
    there.write_text("kept before this session\n")
    app = make_app("refunds", start_walk=True, trace_path=str(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: path.exists())
        await pilot.press("r", "c")
        free = tmp_path / "auto-2.walk2.jsonl"
        await wait_for(pilot, lambda: free.exists())
        await wait_for(pilot, lambda: any(n.message == f"Trace saved to {free}" for n in app.notes))
    assert there.read_text() == "kept before this session\n"
    assert read_trace(free).end == "finished"
