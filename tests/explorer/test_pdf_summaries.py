"""`import FILE.pdf --summaries openai:MODEL`: each node's summary written by the model, asked over real HTTP of a
server on 127.0.0.1, its requests kept in the response cache and counted (cached, new), a failed node keeping its
extractive summary with one line saying so, and a model that is no LLM's refused in one line."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from explorer.corpora import load_corpus
from explorer.corpora.progress import Progress
from tests.command_line import run_cli
from tests.explorer.corpora.pdf_maker import Bookmark, Line, make_pdf
from tests.explorer.corpora.test_pdf import BILLING, REFUNDS, SHIPPING, outline_pdf

from .http_stub import Recorded, Reply, StubServer

MODEL = "openai:summary-model"
ENV = {"OPENAI_API_KEY": "sk-summaries-000111", "REASONING_EXPLORER_MAX_RETRIES": "0"}
EXTRACTIVE_SHIPPING = "Parcels leave the warehouse every weekday at noon. Tracking numbers are emailed when the parcel leaves."


def completion(content: str) -> Reply:
    return Reply(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})


def section(request: Recorded) -> str:
    user = request.json()["messages"][1]["content"]
    found = re.match(r"Section: (.*)", user)
    assert found is not None, user
    return found[1]


def summarising(fail: str | None = None) -> Any:
    """A server that summarises each section by its title (and answers 500 for the section ``fail``)."""
    def respond(request: Recorded) -> Reply:
        title = section(request)
        if title == fail:
            return Reply(500, {"error": {"message": "the model is overloaded"}})
        return completion(f"  What {title} says,\n in a word.  ")
    return respond


def summaries(path: Path) -> dict[str, str]:
    tree = json.loads(path.read_text(encoding="utf-8"))
    found, stack = {}, list(tree["structure"])
    while stack:
        node = stack.pop()
        found[node["node_id"]] = node["summary"]
        stack.extend(node.get("nodes") or [])
    return found


def test_summaries_are_written_by_the_model_then_read_from_the_cache(tmp_path: Path) -> None:
    pdf = outline_pdf(tmp_path)
    cache = tmp_path / "cache"
    with StubServer(respond=summarising()) as server:
        env = {**ENV, "OPENAI_BASE_URL": server.url}
        out = run_cli("import", pdf, "--summaries", MODEL, "--cache", cache, env=env)
        assert out.returncode == 0, out.stderr
        assert out.stdout.splitlines()[0] == "summaries by openai:summary-model: 3 requests, 0 cached, 3 new"
        assert out.stderr == ""
        asked = server.requests
        assert [section(r) for r in asked] == ["1 Billing", "1.1 Refunds", "2 Shipping"]
        billing = asked[0].json()
        assert billing["model"] == "summary-model" and billing["temperature"] == 0 and "response_format" not in billing
        assert billing["messages"][0]["role"] == "system"
        assert billing["messages"][1]["content"] == (
            "Section: 1 Billing\n\nSections under it:\n- 1.1 Refunds\n\nIts text:\n"
            "Invoices are sent on the first day of every month.\nEach invoice lists the plan and the seats in use.\n\n"
            "1.1 Refunds\nA refund is paid within ten days of the request.\n"
            "Refunds go back to the card that paid the invoice.\n\nWrite its summary.")
        written = tmp_path / "handbook.json"
        assert summaries(written) == {"1-billing": "What 1 Billing says, in a word.",
                                      "1-1-refunds": "What 1.1 Refunds says, in a word.",
                                      "2-shipping": "What 2 Shipping says, in a word."}
        again = run_cli("import", pdf, "--summaries", MODEL, "--cache", cache, "--overwrite", env=env)
        assert again.returncode == 0, again.stderr
        assert again.stdout.splitlines()[0] == "summaries by openai:summary-model: 3 requests, 3 cached, 0 new"
        assert len(server.requests) == 3  # nothing asked again
        assert summaries(written)["1-1-refunds"] == "What 1.1 Refunds says, in a word."


def test_a_node_whose_request_fails_keeps_its_extractive_summary_and_says_so(tmp_path: Path) -> None:
    pdf = outline_pdf(tmp_path)
    with StubServer(respond=summarising(fail="2 Shipping")) as server:
        out = run_cli("import", pdf, "--summaries", MODEL, "--no-cache", env={**ENV, "OPENAI_BASE_URL": server.url})
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == ("summaries by openai:summary-model: 3 requests, 0 cached, 2 new, 1 failed "
                                          "(its extractive summary kept)")
    (line,) = out.stderr.splitlines()
    assert line.startswith("reasoning-explorer: warning: the summary of node '2-shipping' was not written by "
                           "openai:summary-model (")
    assert "500" in line and "overloaded" in line and line.endswith("); its extractive summary is kept")
    assert "Traceback" not in out.stderr
    written = summaries(tmp_path / "handbook.json")
    assert written["2-shipping"] == EXTRACTIVE_SHIPPING
    assert written["1-billing"] == "What 1 Billing says, in a word."


def test_a_server_that_is_not_there_is_asked_three_times_and_every_extractive_summary_is_kept(tmp_path: Path) -> None:
    returns = [Line("3 Returns", 16, True), Line("A parcel may be sent back within thirty days of its arrival.")]
    contact = [Line("4 Contact", 16, True), Line("Support answers by email within one working day.")]
    pdf = make_pdf(tmp_path / "handbook.pdf", [BILLING, REFUNDS, SHIPPING, returns, contact],
                   outline=(Bookmark("1 Billing", 0, (Bookmark("1.1 Refunds", 1),)), Bookmark("2 Shipping", 2),
                            Bookmark("3 Returns", 3), Bookmark("4 Contact", 4)))
    with StubServer() as server:
        url = server.url
    out = run_cli("import", pdf, "--summaries", MODEL, "--no-cache", env={**ENV, "OPENAI_BASE_URL": url})
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == ("summaries by openai:summary-model: 3 requests, 0 cached, 0 new, 3 failed, "
                                          "2 not asked after 3 failures in a row (their extractive summary kept)")
    failed = out.stderr.splitlines()
    assert [line.split("'")[1] for line in failed] == ["1-billing", "1-1-refunds", "2-shipping"]
    assert all("127.0.0.1" in line for line in failed) and "Traceback" not in out.stderr
    written = summaries(tmp_path / "handbook.json")
    assert written["2-shipping"] == EXTRACTIVE_SHIPPING
    assert written["4-contact"] == "Support answers by email within one working day."


def test_summaries_by_a_navigator_that_is_no_llm_are_refused_in_one_line(tmp_path: Path) -> None:
    pdf = outline_pdf(tmp_path)
    out = run_cli("import", pdf, "--summaries", "lexical:default")
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == ("reasoning-explorer: error: --summaries lexical:default: summaries are written by an LLM "
                          "navigator's model; give openai:MODEL, ollama:MODEL, vllm:MODEL, local:MODEL, or leave "
                          "--summaries out for the extractive ones\n")
    assert not (tmp_path / "handbook.json").exists()


def test_a_walk_on_a_pdf_with_summaries_offers_the_models_summaries_and_says_the_requests(tmp_path: Path) -> None:
    pdf = outline_pdf(tmp_path)
    with StubServer(respond=summarising(fail="1 Billing")) as server:
        out = run_cli("walk", pdf, "how long does a refund take", "--navigator", "lexical:default",
                      "--summaries", MODEL, "--no-cache", env={**ENV, "OPENAI_BASE_URL": server.url})
        assert len(server.requests) == 3
    assert out.returncode == 0, out.stderr
    said = out.stderr.splitlines()
    assert said[0] == ("reasoning-explorer: summaries by openai:summary-model: 3 requests, 0 cached, 2 new, 1 failed "
                       "(its extractive summary kept)")
    assert said[1].startswith("reasoning-explorer: the summary of node '1-billing' was not written by ")
    assert len(said) == 2
    assert "1 Billing  Invoices are sent on the first day of every month." in out.stdout  # the extractive one kept
    assert "1.1 Refunds  What 1.1 Refunds says, in a word." in out.stdout  # the offer shows the model's summary


def test_summaries_on_a_corpus_that_is_no_pdf_are_refused_in_one_line(tmp_path: Path) -> None:
    corpus = tmp_path / "notes.md"
    corpus.write_text("# Notes\n\nSome notes on refunds and their timing.\n", encoding="utf-8")
    out = run_cli("walk", corpus, "refunds", "--navigator", "lexical:default", "--summaries", MODEL)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (f"reasoning-explorer: error: --summaries writes the summaries of a PDF opened as a corpus, "
                          f"and {corpus} is no PDF; leave --summaries out\n")


def test_an_evaluation_on_a_pdf_with_summaries_says_the_requests_once(tmp_path: Path) -> None:
    outline_pdf(tmp_path)
    questions = tmp_path / "handbook.questions.yaml"
    questions.write_text("corpus: handbook.pdf\nquestions:\n  - id: refund-time\n    query: how long does a refund "
                         "take\n    expect: [1-1-refunds]\n", encoding="utf-8")
    cache = tmp_path / "cache"
    with StubServer(respond=summarising()) as server:
        env = {**ENV, "OPENAI_BASE_URL": server.url}
        first = run_cli("eval", questions, "--navigator", "lexical:default", "--summaries", MODEL, "--cache", cache,
                        env=env)
        again = run_cli("eval", questions, "--navigator", "lexical:default", "--summaries", MODEL, "--cache", cache,
                        env=env)
        assert len(server.requests) == 3
    assert first.returncode == 0, first.stderr
    assert first.stderr.splitlines() == ["reasoning-explorer: summaries by openai:summary-model: 3 requests, 0 cached, "
                                         "3 new"]
    assert again.stderr.splitlines() == ["reasoning-explorer: summaries by openai:summary-model: 3 requests, 3 cached, "
                                         "0 new"]
    assert "refund-time" in first.stdout


def test_an_answer_of_blank_space_keeps_the_extractive_summary_and_says_so(tmp_path: Path) -> None:
    """A model that answers only spaces and newlines wrote no summary: the node keeps its extractive one (an empty
    summary would show the navigator nothing of the section)."""
    pdf = outline_pdf(tmp_path)

    def respond(request: Recorded) -> Reply:
        return completion(" \n\t ") if section(request) == "2 Shipping" else completion(f"About {section(request)}.")

    with StubServer(respond=respond) as server:
        out = run_cli("import", pdf, "--summaries", MODEL, "--no-cache", env={**ENV, "OPENAI_BASE_URL": server.url})
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == ("summaries by openai:summary-model: 3 requests, 0 cached, 2 new, 1 failed "
                                          "(its extractive summary kept)")
    (line,) = out.stderr.splitlines()
    assert line == ("reasoning-explorer: warning: the summary of node '2-shipping' was not written by "
                    "openai:summary-model (openai answered no text); its extractive summary is kept")
    assert summaries(tmp_path / "handbook.json")["2-shipping"] == EXTRACTIVE_SHIPPING


def test_a_pdf_hashes_with_the_summaries_a_model_wrote_and_as_the_plain_pdf_when_it_wrote_none(
        tmp_path: Path) -> None:
    """A walk on a model's summaries saw other offers than one on the extractive ones: the corpus's sha256 (which
    traces and kept runs carry) covers the summaries written, and only when they changed any."""
    pdf = outline_pdf(tmp_path)
    plain = load_corpus(pdf)

    def by_title(tree: Any, progress: Progress) -> None:
        stack = list(tree["structure"])
        while stack:
            node = stack.pop()
            node["summary"] = f"About {node['title']}."
            stack.extend(node.get("nodes") or [])

    assert plain.sha256 == hashlib.sha256(pdf.read_bytes()).hexdigest()
    assert load_corpus(pdf, summaries=lambda tree, progress: None).sha256 == plain.sha256  # none written
    written = load_corpus(pdf, summaries=by_title)
    assert written.summary_of("1-1-refunds") == "About 1.1 Refunds."
    assert written.sha256 != plain.sha256
    assert load_corpus(pdf, summaries=by_title).sha256 == written.sha256  # the same summaries, the same corpus


def test_a_trace_walked_on_a_models_summaries_is_refused_on_the_plain_pdf_in_one_line(tmp_path: Path) -> None:
    pdf = outline_pdf(tmp_path)
    trace = tmp_path / "walk.jsonl"
    with StubServer(respond=summarising()) as server:
        out = run_cli("walk", pdf, "how long does a refund take", "--navigator", "lexical:default", "--summaries",
                      MODEL, "--no-cache", "--trace", trace, env={**ENV, "OPENAI_BASE_URL": server.url})
    assert out.returncode == 0, out.stderr
    replayed = run_cli("replay", trace)
    assert (replayed.returncode, replayed.stdout) == (2, "")
    assert replayed.stderr.startswith(f"reasoning-explorer: error: {trace}: the trace was made on a different version "
                                      f"of {pdf}, or on summaries a model wrote (sha256 ")
    assert replayed.stderr.endswith("; replay it on the corpus it was made on, or open it with the --summaries it was "
                                    "walked with (reasoning-explorer TRACE --summaries MODEL)\n")
    assert replayed.stderr.count("\n") == 1
