"""Regenerate the README's screenshot: the explorer mid-walk on the sample handbook.

Run: .venv/bin/python docs/screenshot.py  (writes docs/explorer.svg)
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.app import ExplorerApp  # noqa: E402
from explorer.corpora import load_corpus  # noqa: E402
from explorer.navigators import resolve_navigator  # noqa: E402
from explorer.session import WalkSettings  # noqa: E402


async def main() -> None:
    os.chdir(ROOT)  # paths as a person types them
    corpus = load_corpus("sample_corpora/handbook.yaml")
    model = "script:sample_corpora/scripts/hallucinated-branch.yaml"
    settings = WalkSettings("How do I get a refund?", model, max_nodes_visited=6)
    app = ExplorerApp(corpus, settings, navigator=resolve_navigator(model), start_walk=True)
    async with app.run_test(size=(150, 42)) as pilot:
        for _ in range(5):  # roots offered, billing chosen, billing entered, its children offered, the choice
            await pilot.press("n")
            await pilot.pause(0.1)
        await pilot.pause(0.3)
        app.save_screenshot(filename="explorer.svg", path=str(ROOT / "docs"))


if __name__ == "__main__":
    asyncio.run(main())
