"""The map variant a walk was walked with, named where the walk is exported and traced (issue 46 point 5): the HTML
page says its file's name and short hash under the settings, and the walk's span carries its path and hash (read
back from the span file as the trace's header holds them); a walk with no map says none, and its spans read as
those written before maps were."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from explorer.tui.export_page import page as export_page
from explorer.walks.telemetry.span_walks import index_span_walks, read_span_walk
from tests.command_line import run_cli
from tests.samples import SAMPLES

QUERY = "How are refunds issued?"
SUMMARY = "Refunds, invoices and payments: how money comes back."


def walk_span(spans_file: Path) -> dict[str, Any]:
    (line,) = spans_file.read_text(encoding="utf-8").splitlines()
    spans = json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    (root,) = [span for span in spans if "parentSpanId" not in span]
    return {kv["key"]: kv["value"] for kv in root["attributes"]}


def test_the_map_is_named_on_the_page_and_on_the_walk_span_and_read_back_from_it(tmp_path: Path) -> None:
    corpus = tmp_path / "handbook.yaml"
    shutil.copy(SAMPLES / "handbook.yaml", corpus)
    variant = tmp_path / "maps" / "handbook.map.yaml"
    variant.parent.mkdir()
    variant.write_text(f"nodes:\n  billing:\n    summary: '{SUMMARY}'\n", encoding="utf-8")
    sha = hashlib.sha256(variant.read_bytes()).hexdigest()
    trace, spans, page = tmp_path / "walk.trace.jsonl", tmp_path / "spans.jsonl", tmp_path / "walk.html"
    done = run_cli("walk", corpus, QUERY, "--navigator", "lexical:default", "--map", variant, "--trace", trace,
                   "--otlp-file", spans)
    assert done.returncode == 0, done.stderr

    # The walk's span: the map's path and hash, as attributes and in its metadata.
    attributes = walk_span(spans)
    assert attributes["reasoning_explorer.map.path"] == {"stringValue": str(variant)}
    assert attributes["reasoning_explorer.map.sha256"] == {"stringValue": sha}
    assert json.loads(attributes["metadata"]["stringValue"])["map"] == {"path": str(variant), "sha256": sha}
    # Read back from the span file, the walk's header names it as its trace does.
    (place,) = index_span_walks(spans)
    assert place.header.map is not None and (place.header.map.path, place.header.map.sha256) == (str(variant), sha)
    walked = read_span_walk(spans, place)
    assert walked.header.map == place.header.map

    # The page of its trace says the map under the settings: its file's name and short hash.
    done = run_cli("export", trace, "--html", page)
    assert done.returncode == 0, done.stderr
    text = page.read_text(encoding="utf-8")
    said = f'<p class="meta" id="map">Walked with the map variant handbook.map.yaml (sha256 {sha[:12]}…)</p>'
    assert said in text
    # And the page of the walk read back from its spans says it too.
    done = run_cli("export", spans, "--html", tmp_path / "from-spans.html")
    assert done.returncode == 0, done.stderr
    assert said in (tmp_path / "from-spans.html").read_text(encoding="utf-8")


def test_a_walk_with_no_map_names_none_and_its_spans_read_as_before(tmp_path: Path) -> None:
    trace, spans, page = tmp_path / "walk.trace.jsonl", tmp_path / "spans.jsonl", tmp_path / "walk.html"
    done = run_cli("walk", SAMPLES / "handbook.yaml", QUERY, "--navigator", "lexical:default", "--trace", trace,
                   "--otlp-file", spans)
    assert done.returncode == 0, done.stderr
    attributes = walk_span(spans)
    assert not [key for key in attributes if key.startswith("reasoning_explorer.map")]
    assert "map" not in json.loads(attributes["metadata"]["stringValue"])
    (place,) = index_span_walks(spans)
    assert place.header.map is None and read_span_walk(spans, place).header.map is None
    done = run_cli("export", trace, "--html", page)
    assert done.returncode == 0, done.stderr
    assert 'id="map"' not in page.read_text(encoding="utf-8")


def test_the_maps_name_is_escaped_on_the_page() -> None:
    said = export_page(title="t", subtitle="s", frames=[], steps=[], transcripts=[], transcript_of=[], decisions=[],
                       total=0, map_variant="<script>alert(1)</script>.map.yaml (sha256 0123456789ab…)")
    assert ('<p class="meta" id="map">Walked with the map variant &lt;script&gt;alert(1)&lt;/script&gt;.map.yaml '
            "(sha256 0123456789ab…)</p>") in said
    assert said.count("<script") == 2  # the page's own two: data and code


def test_eval_with_a_map_names_it_on_every_walk_span(tmp_path: Path) -> None:
    corpus = tmp_path / "handbook.yaml"
    shutil.copy(SAMPLES / "handbook.yaml", corpus)
    questions = tmp_path / "two.questions.yaml"
    questions.write_text("corpus: handbook.yaml\nquestions:\n  - id: refunds\n    query: How are refunds issued?\n"
                         "    expect: [refund-delivery]\n  - id: reset\n    query: How do I reset my password?\n"
                         "    expect: [password-reset]\n", encoding="utf-8")
    variant = tmp_path / "maps" / "handbook.map.yaml"
    variant.parent.mkdir()
    variant.write_text(f"nodes:\n  billing:\n    summary: '{SUMMARY}'\n", encoding="utf-8")
    sha = hashlib.sha256(variant.read_bytes()).hexdigest()
    spans = tmp_path / "spans.jsonl"
    done = run_cli("eval", questions, "--map", variant, "--judge", "none", "--otlp-file", spans)
    assert done.returncode == 0, done.stderr
    roots = [span for line in spans.read_text(encoding="utf-8").splitlines()
             for span in json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"] if "parentSpanId" not in span]
    maps = sorted((kv["key"], kv["value"]["stringValue"]) for span in roots for kv in span["attributes"]
                  if kv["key"].startswith("reasoning_explorer.map."))
    assert len(roots) == 2
    assert maps == [("reasoning_explorer.map.path", str(variant))] * 2 + [("reasoning_explorer.map.sha256", sha)] * 2
