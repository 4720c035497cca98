"""A navigator as the judge of the misses (issue 46, point 1: ``--judge`` an LLM navigator that scores), over a real
HTTP server on 127.0.0.1 speaking the OpenAI chat API: ``eval --judge openai:MODEL`` asks for a score per candidate,
ranks what was shown (titles and summaries) and what lies beneath (the text under each, as its summary), reranks the
offline flat search's top nodes in one call, says what it cost, and a judge that fails leaves the run whole, its
misses unjudged, in one line."""

from __future__ import annotations

import json
from pathlib import Path

from explorer.navigators.navigator_judge import scored_model
from tests.command_line import run_cli

from .http_stub import Recorded, Reply, StubServer

CORPUS = """\
source: shop
title: Shop
nodes:
  - id: billing
    title: Billing
    summary: Invoices and payment methods.
    children:
      - id: refunds
        title: Money back
        summary: When we pay back.
        content: Refunds are issued within 14 days to the original card.
  - id: shipping
    title: Shipping
    summary: Refunds of every kind, how long refunds take, fast.
    content: Carriers and delivery times for parcels.
"""
QUESTIONS = """\
corpus: shop.yaml
questions:
  - id: refund-time
    query: how long do refunds take
    expect: [refunds]
"""
FAVOURED = {"shown": "shipping", "beneath": "billing", "flat": "refunds"}
"""Whom the scripted judge scores 90 (the others 10), by the call: what was shown (the misleading summary wins), what
lies beneath (the refund's content is under Billing), the flat rerank (the refund node itself)."""


def call_of(request: Recorded) -> str:
    user = request.json()["messages"][-1]["content"]
    if "Refunds are issued within 14 days" not in user:
        return "shown"
    return "flat" if "id: refunds" in user else "beneath"


def offered(request: Recorded) -> list[str]:
    schema = request.json()["response_format"]["json_schema"]["schema"]
    return list(schema["properties"]["selected"]["items"]["enum"])


def scripted(request: Recorded) -> Reply:
    """Scores 90 for the node this call favours, 10 for the others, as an LLM asked with scores=on answers."""
    ids, favoured = offered(request), FAVOURED[call_of(request)]
    content = json.dumps({"selected": [favoured] if favoured in ids else [], "rationale": "scripted",
                          "scores": [{"id": node, "score": 90 if node == favoured else 10} for node in ids]})
    return Reply(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                    "finish_reason": "stop"}]})


def shop(tmp_path: Path) -> Path:
    (tmp_path / "shop.yaml").write_text(CORPUS, encoding="utf-8")
    questions = tmp_path / "shop.questions.yaml"
    questions.write_text(QUESTIONS, encoding="utf-8")
    return questions


def test_an_llm_judge_says_the_map_hid_it_and_reranks_the_flat_search(tmp_path: Path) -> None:
    questions = shop(tmp_path)
    with StubServer(respond=scripted) as server:
        done = run_cli("eval", questions, "--navigator", "lexical:default", "--judge", "openai:judge-model", "--json",
                       "--no-cache", env={"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-test"})
        calls = [call_of(request) for request in server.requests]
        models = {request.json()["model"] for request in server.requests}
    assert done.returncode == 0, done.stderr
    (result,) = json.loads(done.stdout)["results"]
    assert result["landed"] == ["shipping"]  # lexical:default believed the misleading summary
    assert result["blame"]["kind"] == "map-hid" and result["blame"]["node"] == "billing"
    assert result["blame"]["says"].startswith("the map hid it: at the roots, what lies beneath 'Billing' ranks it "
                                              "1st of 2 for the query")
    assert result["flat"] == 1  # the rerank put the refund node first
    assert sorted(calls) == ["beneath", "flat", "shown"] and models == {"judge-model"}
    assert done.stderr.strip().splitlines()[-1] == (
        "reasoning-explorer: the judge openai:judge-model@scores=on made 3 calls (two a miss it judged, one a question "
        "for the flat search's rerank)")


def test_a_judge_that_fails_leaves_the_run_whole_and_says_so_in_one_line(tmp_path: Path) -> None:
    questions = shop(tmp_path)
    refusal = Reply(400, {"error": {"message": "no such model \x1b[31m"}})
    with StubServer(respond=lambda request: refusal) as server:
        done = run_cli("eval", questions, "--navigator", "lexical:default", "--judge", "openai:judge-model", "--json",
                       "--no-cache", env={"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-test"})
    assert done.returncode == 0, done.stderr
    (result,) = json.loads(done.stdout)["results"]
    assert result["hit"] is False and result["blame"] is None and result["flat"] is None
    (failed,) = [line for line in done.stderr.splitlines() if "failed" in line]
    assert failed.startswith("reasoning-explorer: --judge openai:judge-model@scores=on failed (")
    assert failed.endswith("); the 1 question(s) left are not judged") and "\x1b" not in done.stderr
    assert "Traceback" not in done.stderr


def test_a_judge_there_is_not_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = run_cli("eval", shop(tmp_path), "--judge", "nosuch:thing")
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line == ("reasoning-explorer: error: --judge: no judge is named 'nosuch:thing': a judge is one of "
                    "semantic:default (the bundled static embeddings); lexical:default (BM25 over the same texts); "
                    "or a navigator that scores (openai:MODEL)")
    done = run_cli("eval", shop(tmp_path), "--judge", "openai:m@temperature=9")  # an LLM's own problem: said too
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("reasoning-explorer: error: --judge: no judge is named 'openai:m@temperature=9': ")
    assert "temperature" in line.split("(openai:MODEL): ", 1)[1]


def test_the_model_asks_for_scores_once() -> None:
    assert scored_model("openai:m") == "openai:m@scores=on"
    assert scored_model("openai:m@temperature=0") == "openai:m@temperature=0,scores=on"
    assert scored_model("openai:m@scores=on") == "openai:m@scores=on"
    assert scored_model("semantic:hybrid") == "semantic:hybrid"


def test_export_judges_the_miss_with_an_llm_through_the_cache_and_a_failing_one_leaves_the_page_whole(
        tmp_path: Path) -> None:
    shop(tmp_path)
    trace, cache = tmp_path / "walk.jsonl", tmp_path / "cache"
    assert run_cli("walk", tmp_path / "shop.yaml", "how long do refunds take", "--navigator", "lexical:default",
                   "--trace", trace).returncode == 0
    with StubServer(respond=scripted) as server:
        env = {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-test"}
        for page in ("first.html", "again.html"):
            done = run_cli("export", trace, "--html", tmp_path / page, "--judge", "openai:judge-model", "--cache",
                           cache, env=env)
            assert done.returncode == 0, done.stderr
        assert sorted(call_of(request) for request in server.requests) == ["beneath", "flat", "shown"]  # once
    for page in ("first.html", "again.html"):
        text = (tmp_path / page).read_text(encoding="utf-8")
        assert ('<p class="verdict" id="verdict">Missed the expected node — the map hid it: at the roots, what lies '
                "beneath &#x27;Billing&#x27; ranks it 1st of 2 for the query") in text
        assert '<p class="meta" id="flat">A flat search finds it 1st: the walk lost it</p>' in text
    refusal = Reply(400, {"error": {"message": "no such model \x1b[31m"}})
    with StubServer(respond=lambda request: refusal) as refusing:
        done = run_cli("export", trace, "--html", tmp_path / "failed.html", "--judge", "openai:judge-model",
                       "--no-cache", env={"OPENAI_BASE_URL": refusing.url, "OPENAI_API_KEY": "sk-test"})
        assert refusing.requests  # asked, and refused
    assert done.returncode == 0, done.stderr
    assert 'id="verdict"' not in (tmp_path / "failed.html").read_text(encoding="utf-8")
    failed, wrote = done.stderr.splitlines()
    assert failed.startswith("reasoning-explorer: --judge openai:judge-model@scores=on failed (NavigatorHTTPError: ")
    assert failed.endswith("; the page says no verdict") and "\x1b" not in done.stderr
    assert wrote.startswith("reasoning-explorer: wrote ")
