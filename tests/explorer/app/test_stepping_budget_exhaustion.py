"""Stepping through budget exhaustion in the explorer: V goes to where the visits ran out, R walks the walk again with
another budget from its recorded decisions (what the recording never judged asked of its navigator, live, when one
can be had), and the step panel says when the navigator's pick
was capped by the visits left (issue 19, point 10)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core import PathStopped, StopReason
from explorer.trace import FinishedWalk, read_trace, write_trace
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.walk_screen.presenting import AT_END
from explorer.tui.widgets.answer_card import AnswerCard
from explorer.walks.history import Origin

from .helpers import SIZE, Counting, make_app, script, wait_for
from .reading import landed_rows, results_summary, step_text, stop_rows, timeline_rows, tree_row

WIDE = script("wide-walk-out-of-visits.yaml")


async def walk_to_the_end(pilot, app) -> None:
    await pilot.press("c")
    await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")


async def test_v_goes_to_the_step_where_the_budget_ran_out():
    app = make_app("what does it cost", model=WIDE, max_nodes_visited=6, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await walk_to_the_end(pilot, app)
        history = app.walk_screen.view.history
        await pilot.press("B", "V")
        event = history.events[history.cursor - 1]
        assert isinstance(event, PathStopped) and event.record.reason is StopReason.VISIT_BUDGET_EXHAUSTED
        assert history.cursor == history.budget_ran_out_at()
        assert app.notes[-1].message == (f"Step {history.cursor}: the 6-visit budget ran out here (b steps back to "
                                         "what spent it).")


async def test_v_on_a_walk_that_never_ran_out_says_so():
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await walk_to_the_end(pilot, app)
        cursor = app.walk_screen.view.history.cursor
        await pilot.press("V")
        assert app.walk_screen.view.history.cursor == cursor
        assert app.notes[-1].message.startswith("The visit budget did not run out in walk 1 · ")


async def test_r_re_walks_with_another_budget_from_the_record_asking_live_only_what_it_never_judged():
    counting = Counting()
    app = make_app("how are refunds issued", navigator=counting, max_nodes_visited=2, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await walk_to_the_end(pilot, app)
        original, calls = app.walk_screen.view.history, counting.calls
        assert original.budget_ran_out_at() is not None
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        assert app.screen.prompt_title.endswith("(its decisions replayed; nodes it never judged are asked of "
                                           f"{original.settings.model}, live)")
        await pilot.press("end", "backspace", "8", "enter")
        await wait_for(pilot, lambda: app.walk_screen.view.history is not original)
        rewalked = app.walk_screen.view.history
        assert rewalked.origin is Origin.REWALK and rewalked.settings.max_nodes_visited == 8
        assert rewalked.name == "walk 2 · walk 1 re-walked with budget 8"
        await walk_to_the_end(pilot, app)
        state = rewalked.state()
        judged = [d.node for d in original.decisions()]
        unjudged = [d for d in rewalked.decisions() if d.node not in judged]  # reached now, with more visits
        assert len(unjudged) == 1
        assert counting.calls == calls + len(unjudged)  # walk 1's decisions from its record, the new one live
        assert all("never judged" not in d.answer.rationale for d in unjudged)
        assert state.live_calls == len(unjudged) and state.replayed_answers == len(judged)
        assert original.settings.max_nodes_visited == 2 and len(app.walks) == 2  # the original is untouched


async def test_r_on_a_trace_whose_navigator_cannot_be_had_stops_where_the_recording_ends(tmp_path):
    counting = Counting()
    app = make_app("how are refunds issued", navigator=counting, max_nodes_visited=2, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await walk_to_the_end(pilot, app)
        walked = app.walk_screen.view.history
        header = walked.finished(app.corpus).header
    header = replace(header, settings=replace(header.settings, model="no-such-provider:model-7"))
    path = write_trace(tmp_path / "t.jsonl", FinishedWalk(header, walked.events, "finished"))
    opened = read_trace(path)
    app = make_app("", navigator=Counting(), opened=[opened])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.walk_screen.view.walk is not None)
        original = app.walk_screen.view.history
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        assert app.screen.prompt_title.endswith("(its decisions replayed; nodes it never judged stop there: no "
                                           "navigator for them here)")
        await pilot.press("end", "backspace", "8", "enter")
        await wait_for(pilot, lambda: app.walk_screen.view.history is not original)
        await walk_to_the_end(pilot, app)
        rewalked = app.walk_screen.view.history
        judged = [d.node for d in original.decisions()]
        unjudged = [d for d in rewalked.decisions() if d.node not in judged]
        assert [d.answer.rationale for d in unjudged] == [f"walk 1 never judged {d.node!r}; stopping here"
                                                          for d in unjudged] and len(unjudged) == 1
        assert rewalked.state().live_calls == 0
        state = rewalked.state()
        assert [d.never_judged for d in rewalked.decisions()] == [d.node not in judged for d in rewalked.decisions()]
        assert unjudged[0].node == "refunds" and list(state.landed) == ["refunds"]
        # Walk 1 never judged refunds and no navigator can be had: never judged, never navigator_stopped.
        assert tree_row(app, "refunds") == "■ 2 ▼ Refunds  refunds  never judged (not in the recording)"
        assert [row for row in timeline_rows(app) if "refunds" in row][-1].endswith(
            "never judged (not in the recording) at refunds")
        await pilot.press("2")
        assert results_summary(app) == ("finished (not cancelled) · visits used 2/8 · navigator calls 0 of 3 decisions "
                                        "(3 replayed) · characters shipped 0 · 1 landed\n"
                                        "Finished: 1 landed — never judged ×1")
        assert landed_rows(app) == [["◌", "Refunds", "never judged (not in the recording)",
                                     "stand-in: the recording never judged it · "
                                     "score 3.87 · bm25", "1", "billing › refunds"]]
        assert stop_rows(app) == [["1", "never judged (not in the recording)", "billing › refunds", "-", "refunds", ""]]


async def test_a_pick_capped_by_the_visits_left_is_said_in_the_step_panel():
    app = make_app("what does it cost", model=WIDE, max_nodes_visited=6, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await walk_to_the_end(pilot, app)
        history = app.walk_screen.view.history
        capped = next(d for d in history.decisions() if d.capped_by_visits)
        history.go(capped.answer_seq)
        await wait_for(pilot, lambda: "capped by the visits left: " in step_text(app))


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_r_to_20_on_a_trace_with_no_navigator_marks_what_it_never_judged_and_counts_it_apart(tmp_path):
    query = "how do I get a refund for my plan"
    app = make_app(query, model="lexical:wide", max_nodes_visited=4, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await walk_to_the_end(pilot, app)
        walked = app.walk_screen.view.history
        header = walked.finished(app.corpus).header
    header = replace(header, settings=replace(header.settings, model="no-such-provider:x"))
    opened = read_trace(write_trace(tmp_path / "four.jsonl", FinishedWalk(header, walked.events, "finished")))
    app = make_app("", opened=[opened])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.walk_screen.view.walk is not None)
        original = app.walk_screen.view.history
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press("end", "backspace", "2", "0", "enter")
        await wait_for(pilot, lambda: app.walk_screen.view.history is not original)
        await walk_to_the_end(pilot, app)
        state = app.walk_screen.view.history.state()
        assert list(state.landed) == ["downgrades", "upgrades", "cancelling-a-subscription", "free-plan", "team-plan",
                                      "business-plan", "billing"]
        assert state.never_judged == {"billing"} and state.live_calls == 0
        # (whether Billing is open depends on whether a redraw fell while it was offered: not what this is about)
        assert tree_row(app, "billing") in {f"■ 9 {fold} Billing  billing  never judged (not in the recording)"
                                            for fold in "▶▼"}
        assert tree_row(app, "upgrades") == "■ 4 Upgrades  upgrades  leaf"
        await pilot.press("2")
        assert results_summary(app).endswith("\nFinished: 7 landed — leaf ×6, never judged ×1")
        assert [row[2] for row in landed_rows(app)] == ["leaf"] * 6 + ["never judged (not in the recording)"]
        assert [row[1] for row in stop_rows(app)].count("navigator_stopped") == 0
        await pilot.press("P")  # presenting: the answer card says it too
        await wait_for(pilot, lambda: app.walk_screen.has_class(AT_END))
        words = app.walk_screen.query_one(AnswerCard).words.splitlines()
        # Billing is a stand-in, set apart under the answers: the walk never got below it.
        assert words[words.index("Stand-ins, not answers: the walk never got below them") + 1] == (
            "◌ Billing  stand-in: the recording never judged it · score 1.99 · named 2nd of 2 · bm25 · billing…")
        assert "■ 2. Upgrades  score 0.14 · named 2nd of 3 · bm25 · upgrades · leaf" in words
