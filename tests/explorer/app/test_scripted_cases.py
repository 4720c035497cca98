"""The scripted cases on screen: a hallucinated branch lands its parent, a provider failure under each
failure policy says what it did, and the failing branch is left in view."""

from __future__ import annotations

import pytest

from core import NavigatorChose, OnFailure
from explorer.tui.widgets.walk_tree import WalkTree
from explorer.walks.state import Mark

from .helpers import SIZE, make_app, script, wait_for
from .reading import landed_rows, status_text, step_text, stop_rows


async def test_a_hallucinated_branch_is_shown_as_such_and_lands_the_parent():
    app = make_app("refund", model=script("hallucinated-branch.yaml"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(5):  # offered roots, chose billing, entered billing, offered its children, chose
            await pilot.press("n")
        await wait_for(pilot, lambda: sum(isinstance(e, NavigatorChose) for e in app.walk_screen.view.history.events) == 2)
        step = step_text(app)
        assert "Step 6/6  navigator chose refund-policy, refunds (1 not offered)" in step
        assert "Not offered (hallucinated): refund-policy" in step
        assert "Chose   refunds" in step
        await pilot.press("n")
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) == 7)
        step = step_text(app)
        assert "Step 7/7  invalid_choice at refund-policy" in step
        assert "Stopped ■ invalid_choice at branch refund-policy" in step
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        assert [(s.reason.value, s.branch, s.landed) for s in app.walk_screen.view.history.state().stops] == [
            ("invalid_choice", "refund-policy", "billing"), ("leaf", None, "requesting-a-refund")]
        assert ("invalid_choice", "refund-policy") in [(row[1], row[3]) for row in stop_rows(app)]  # reason, branch
        assert app.query_one(WalkTree).marks["billing"] is Mark.LANDED


@pytest.mark.parametrize(("policy", "end", "landed"), [
    ("throw", "failed", []),
    ("empty", "finished", []),
    ("partial", "finished", ["refunds", "invoice-schedule"]),
])
async def test_a_provider_failure_under_each_policy(policy, end, landed):
    app = make_app("q", model=script("provider-failure.yaml"), on_failure=OnFailure(policy), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)
        assert app.walk_screen.view.history.end == end
        step = step_text(app)
        if policy != "partial":  # the walk ends at the failure, which stays on screen
            assert "Failed  ScriptedFailure: upstream timeout after 30 s (HTTP 504 from the model gateway)" in step
            assert f"on failure: {policy} — the walk " in step
        else:  # in the results: refunds landed that way, and the walk went on
            assert ("Refunds", "navigator_failed") in [(row[1], row[2]) for row in landed_rows(app)]
        if policy == "throw":
            assert status_text(app) == "failed · see the step panel · e forks · r restarts"
            assert "navigator 'script:" in app.walk_screen.view.history.error and "upstream timeout after 30 s" in app.walk_screen.view.history.error
            assert app.walk_screen.view.history.state().result is None
        else:
            assert [d.id for d in app.walk_screen.view.history.state().result.documents] == landed
        if policy == "empty":
            assert "Finished: no documents — the navigator failed under on-failure empty: ScriptedFailure" in step
        assert list(app.walk_screen.view.history.state().landed) == (["refunds", "invoice-schedule"] if policy == "partial" else [])


async def test_after_c_on_a_provider_failure_the_failing_branch_is_in_view():
    from core import OnFailure

    app = make_app("q", model=script("provider-failure.yaml"), start_walk=True, on_failure=OnFailure.THROW)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)
        tree = app.query_one(WalkTree)
        await wait_for(pilot, lambda: tree.cursor_node is not None)  # the cursor moves once the tree has refreshed
        assert tree.node_for("refunds") is not None and tree.node_for("refunds").is_expanded
        assert tree.cursor_node is not None and tree.cursor_node.data == "refunds"


async def test_a_py_navigator_raising_a_base_exception_is_a_failure_partial_lands_where_it_was(tmp_path):
    """A ``py:`` navigator's GeneratorExit (not an Exception) stalled the walk on screen; it is a navigator failure,
    and under partial the walk lands at billing, where it was."""
    (tmp_path / "closing.py").write_text(
        "from core import NavigatorChoice, TreeNavigator\n\n\n"
        "class Closing(TreeNavigator):\n"
        "    def supports(self, model):\n        return False\n\n"
        "    def choose(self, request):\n"
        "        if request.current is None:\n"
        "            return NavigatorChoice(('billing',))\n"
        "        raise GeneratorExit('at billing')\n")
    app = make_app("refunds", model=f"py:{tmp_path / 'closing.py'}:Closing", on_failure=OnFailure("partial"),
                   start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)
        assert app.walk_screen.view.history.end == "finished"
        assert [(s.reason.value, s.landed, s.detail) for s in app.walk_screen.view.history.state().stops] == [
            ("navigator_failed", "billing", "RuntimeError: the navigator raised GeneratorExit: at billing")]
        assert ("Billing", "navigator_failed") in [(row[1], row[2]) for row in landed_rows(app)]
