"""A best-first walk on the explorer (issue 37, point 3): its setting in the next walk's note, its walk ranked by path
score. The frontier drawn beside the offer is not built yet."""

from __future__ import annotations

from pathlib import Path

from core import Policy
from explorer.navigators import resolve_navigator
from explorer.walk_settings import WalkSettings

from ..test_policy_cli import BEST_FIRST, SCRIPT
from .helpers import HANDBOOK, SIZE, Explorer, wait_for
from .reading import next_settings


async def test_a_best_first_walk_says_its_policy_and_enters_by_path_score(tmp_path: Path) -> None:
    (tmp_path / "order.yaml").write_text(SCRIPT)
    model = f"script:{tmp_path / 'order.yaml'}"
    settings = WalkSettings("q", model, policy=Policy.BEST_FIRST, alpha=0.9)
    app = Explorer(HANDBOOK, settings, navigator=resolve_navigator(model), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        assert next_settings(app) == "next walk: script:order.yaml · budget 15 · depth limit 6 · on failure throw · best-first@alpha=0.9"
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.history.end == "finished")
        history = app.walk_screen.history
        assert [e.node.id for e in history.events if type(e).__name__ == "NodeEntered"] == BEST_FIRST
        assert [d.id for d in history.state().result.documents] == [
            "password-sign-in", "password-reset", "free-plan", "lost-two-factor-device", "account-lockout"]
