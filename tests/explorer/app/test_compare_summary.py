"""The compare panel (D) leads with what each walk landed and cost, then where they part; the prompts each walk
sent there are folded under O; both walks' landed nodes are open on the tree, a landed branch with its children.
Each is read at 80×24, then again after the terminal is resized to 120×40 in the same app."""

from __future__ import annotations

from explorer.tui.screens.choose_walk import WalksScreen
from explorer.tui.widgets.walk_tree import WalkTree

from .helpers import make_app, resize, script, wait_for
from .reading import compare_text, tree_row

SUMMARY = [
    "Comparing A = walk 2 · fork of walk 1: at billing chose invoices  with  B = walk 1 · “annual refund formula” · "
    "script:depth-limit.yaml · budget 15",
    "A landed invoices (navigator_stopped)",
    "  cost 2 visits · calls 1 of 3 (1 forced, 1 replayed) · no tokens · 266 characters shipped",
    "B landed refund-exceptions (max_depth)",
    "  cost 3 visits · calls 3 · no tokens · 2,100 characters shipped",
    "Landed in both: none",
    "First divergence: decision 2, at billing — chose differently",
    "  A ⚑ forced invoices — why forced by a person: at billing chose invoices",
    "  B chose refunds — why The refunds section.",
]


async def compared(pilot, app):  # type: ignore[no-untyped-def]
    """Walk 1 to its end (cut off at refund-exceptions by the depth limit), walk 2 a fork of it at billing
    (invoices instead of refunds) to its end, then D and Enter: walk 2 compared with walk 1."""
    await pilot.press("c")
    await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)
    original = app.walk_screen.view.history
    await pilot.press("B", "f", "f", "f", "f", "e", "5", "1", "a")
    await wait_for(pilot, lambda: app.walk_screen.view.history is not original)
    await pilot.press("c")
    await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)
    await pilot.press("D")
    await wait_for(pilot, lambda: isinstance(app.screen, WalksScreen))
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.walk_screen.view.comparing is not None)


SIZES = ((80, 24), (120, 40))


async def summary_then_prompts(pilot) -> None:
    """The compare panel: the summary, the prompts folded; O unfolds them after it, O folds them again."""
    app = pilot.app
    shown = compare_text(app).splitlines()
    assert shown == [*SUMMARY,
                     "Prompts folded: O shows what each walk was offered and sent there (system, user).",
                     "Tree: A only · B only · = both · ⑂ where they part.  D ends the comparison."]
    await pilot.press("O")
    await wait_for(pilot, lambda: "offer at step 5" in compare_text(app))
    unfolded = compare_text(app)
    assert unfolded.startswith("\n".join(SUMMARY) + "\n")
    assert "offer at step 5: invoices, payment-methods, failed-payments, taxes, refunds, account-credits" \
        in unfolded
    assert "billing: {select: [refunds], rationale: \"The refunds section.\"}" in unfolded  # B's transcript
    assert unfolded.endswith("O folds the prompts again.\n"
                             "Tree: A only · B only · = both · ⑂ where they part.  D ends the comparison.")
    await pilot.press("O")
    await wait_for(pilot, lambda: "offer at step 5" not in compare_text(app))
    assert compare_text(app).splitlines() == shown


def landed_open(app, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """Both walks' landed nodes open on the tree, a landed branch with its children (at 120×40, their rows whole)."""
    tree = app.query_one(WalkTree)
    for landed in ("invoices", "refund-exceptions"):  # A's and B's: both branches, both open
        node = tree.node_for(landed)
        assert node is not None and node.is_expanded and node.line >= 0
    assert tree.node_for("annual-plan-refunds").line >= 0  # a child of B's landed branch is a row of the tree
    if size == (120, 40):
        assert tree_row(app, "refund-exceptions") == "B ▼ Refund exceptions  B max_depth"
        assert tree_row(app, "annual-plan-refunds") == "  ▶ Annual plan refunds  annual-plan"  # the edge


async def test_the_compare_panel_and_the_tree_of_two_compared_walks():
    """One app, walk 2 compared with walk 1, read at 80×24 and again after the terminal is resized to 120×40:

    - the compare panel leads with what each walk landed and cost, then where they part, and folds the prompts
      under O (``summary_then_prompts``);
    - both walks' landed nodes are open on the tree (``landed_open``).
    """
    app = make_app("annual refund formula", model=script("depth-limit.yaml"), max_depth=2, start_walk=True)
    async with app.run_test(size=SIZES[0]) as pilot:
        await compared(pilot, app)
        for size in SIZES:
            await resize(pilot, size)
            await summary_then_prompts(pilot)
            landed_open(app, size)
