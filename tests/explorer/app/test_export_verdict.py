"""A miss's verdict on the exported page (issue 46, point 3): a walk whose query is a question of the set beside the
corpus, missed, says under the page's title whose fault it was and where a flat search ranks the expected node — from
`H` (as the step panel judged it) and from `export` (judged there) alike, escaped as every corpus text is."""

from __future__ import annotations

import html

from textual.widgets import Input

from explorer.navigators import resolve_navigator
from explorer.tui.export_page import missed, page
from explorer.tui.screens.prompt import PromptScreen
from explorer.walk_settings import WalkSettings
from tests.command_line import run_cli

from .helpers import HANDBOOK, HANDBOOK_PATH, Explorer, wait_for

QUERY = "How much is the home office budget for new employees?"
"""Question ``home-office-budget`` of the handbook's set: it expects ``home-office-setup``; lexical:default with 6
visits turns away from it at the roots."""
SAYS = ("the navigator erred: at the roots, what it was shown ranks 'Employee policies' 1st of 9 (its content 1st), "
        "and it chose 'onboarding'")
VERDICT = (f'<p class="verdict" id="verdict">Missed the expected node — {html.escape(SAYS)}</p>\n'
           '<p class="meta" id="flat">A flat search finds it 1st: the walk lost it</p>')


async def test_h_writes_the_miss_verdict_and_the_flat_rank_under_the_title(tmp_path) -> None:
    out = tmp_path / "home-office.html"
    settings = WalkSettings(QUERY, "lexical:default", max_nodes_visited=6)
    app = Explorer(HANDBOOK, settings, navigator=resolve_navigator("lexical:default"), start_walk=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        walk = app.walk_screen.view.walk
        await wait_for(pilot, lambda: walk.judged is not None, timeout=120)
        await pilot.press("H")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one(Input).value = str(out)
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("Walk exported to" in n.message for n in app.notes), timeout=300)
    assert VERDICT in out.read_text(encoding="utf-8")


def test_export_judges_the_trace_of_a_miss_itself_and_a_hit_says_nothing(tmp_path) -> None:
    trace, out = tmp_path / "walk.trace.jsonl", tmp_path / "walk.html"
    done = run_cli("walk", HANDBOOK_PATH, QUERY, "--navigator", "lexical:default", "--max-visits", "6", "--trace",
                   trace)
    assert done.returncode == 0, done.stderr
    done = run_cli("export", trace, "--html", out)
    assert done.returncode == 0, done.stderr
    assert VERDICT in out.read_text(encoding="utf-8")
    hit, page_of_hit = tmp_path / "hit.trace.jsonl", tmp_path / "hit.html"
    assert run_cli("walk", HANDBOOK_PATH, "What happens when the 21-day free trial ends?", "--navigator",
                   "lexical:default", "--trace", hit).returncode == 0  # question trial-ends: it lands free-trial
    assert run_cli("export", hit, "--html", page_of_hit).returncode == 0
    assert 'id="verdict"' not in page_of_hit.read_text(encoding="utf-8")


def test_the_verdict_is_escaped_on_the_page() -> None:
    hostile = ("the map hid it: at '<script>alert(1)</script>' \x1b[31m", "a flat search finds it 2nd: the walk lost it")
    said = missed(hostile)
    assert "<script>" not in said and "&lt;script&gt;alert(1)&lt;/script&gt;" in said
    assert said.endswith('<p class="meta" id="flat">A flat search finds it 2nd: the walk lost it</p>')
    assert missed(()) == "" and missed(("no", "")) == ('<p class="verdict" id="verdict">Missed the expected node — '
                                                       'no</p>')
    whole = page(title="t", subtitle="s", frames=[], steps=[], transcripts=[], transcript_of=[], decisions=[], total=0,
                 verdict=hostile)
    assert whole.count("<script") == 2  # the page's own two: data and code


def test_export_judge_names_the_judge_of_the_miss_and_none_says_no_verdict(tmp_path) -> None:
    trace = tmp_path / "walk.trace.jsonl"
    assert run_cli("walk", HANDBOOK_PATH, QUERY, "--navigator", "lexical:default", "--max-visits", "6", "--trace",
                   trace).returncode == 0
    bm25, unjudged = tmp_path / "bm25.html", tmp_path / "none.html"
    done = run_cli("export", trace, "--html", bm25, "--judge", "lexical:default")
    assert done.returncode == 0, done.stderr
    text = bm25.read_text(encoding="utf-8")
    # BM25 judging a BM25 walk blames the map, not the embeddings' navigator (SAYS), and says it scores as it walked
    says = ("the map misled: at the roots, the title and summary of 'Onboarding' rank it 1st of 9 for the query, but "
            "what lies beneath it only 3rd: its summary promises what its content does not hold (the judge is the "
            "navigator's own scoring: this says only whether the map or the walk was at fault)")
    assert (f'<p class="verdict" id="verdict">Missed the expected node — {html.escape(says)}</p>\n'
            '<p class="meta" id="flat">A flat search finds it 1st: the walk lost it</p>') in text
    assert run_cli("export", trace, "--html", unjudged, "--judge", "none").returncode == 0
    assert 'id="verdict"' not in unjudged.read_text(encoding="utf-8")
    refused = run_cli("export", trace, "--html", tmp_path / "x.html", "--judge", "nope")
    assert refused.returncode == 2 and refused.stderr.startswith("reasoning-explorer: error: --judge: no judge is named")
    assert not (tmp_path / "x.html").exists()
