"""The Transcript tab colours its labels, and only its labels: what the navigator was sent and said is shown in
the text's own colour (the body once took the label's colour, a Text's own style covering all of it)."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from explorer.tui.widgets.transcript import TranscriptView

from .helpers import SIZE, make_app, wait_for


async def test_the_transcript_labels_are_coloured_and_the_bodies_are_not():
    app = make_app("refunds", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")  # the roots offered, then answered by lexical:default
        view = app.walk_screen.query_one(TranscriptView)
        await wait_for(pilot, lambda: isinstance(view.content, Text) and "Decision at" in view.content.plain)
        text = view.content
        assert isinstance(text, Text)
        label = view.get_component_rich_style("transcript--label")
        console = Console()
        assert text.get_style_at_offset(console, 0).color == label.color  # "Decision at"
        assert label.color is not None
        bodies = [line for line in text.plain.split("\n") if line and not line.startswith("Decision at")]
        labels = {str(pair[0]) for pair in app.walk_screen.view.history.decision_at().answer.transcript}
        labels |= {f"{label}  JSON, pretty-printed" for label in labels}  # a JSON body's label says it is shown so
        labels.add("scores  the navigator's, 0 to 1, highest first")  # the scores' heading (its rows are bodies)
        body_lines = [line for line in bodies if line not in labels]
        assert body_lines  # the terms and scores lexical:default sends
        for line in body_lines:
            style = text.get_style_at_offset(console, text.plain.index(line))
            assert style.color != label.color, line
