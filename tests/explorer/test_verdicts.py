"""Whose fault a miss was (issue 46): the verdict at a miss's first wrong turn by an independent judge, the flat
search's rank of the expected node, both in ``eval``'s text and ``--json``, and the audit of a map with no question."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.corpora import load_corpus
from explorer.corpora.questions import load_questions
from explorer.navigators import NavigatorConfigError
from explorer.navigators.judge import EmbeddingJudge, judge_for
from explorer.walk_settings import WalkSettings
from explorer.walks.audit import audit
from explorer.walks.evaluation import BlameKind, evaluate, flat_rank, judged
from tests.command_line import run_cli as run
from tests.samples import SAMPLES

# Three roots. "money" hides its refunds behind a generic title and summary; "office" promises refunds and holds
# desks and parking; "travel" is what it says.
CORPUS = """\
source: t
title: Test handbook
nodes:
  - id: money
    title: {money_title}
    summary: General information and related matters.
    content: ""
    children:
      - id: refunds
        title: Refunds
        summary: How a refund is paid back to your card, and how long it takes.
        content: A refund is paid back to the card you paid with. It reaches your card within five business days of the approval.
      - id: invoices
        title: Invoices
        summary: Monthly invoices, their numbers and how to download them as PDF.
        content: Every month we send an invoice by email. Each invoice has a number and can be downloaded as a PDF from the billing page.
  - id: travel
    title: Travel
    summary: Booking business flights, hotels and trains for a trip.
    children:
      - id: flights
        title: Flights
        summary: Economy class on short flights, premium economy on long ones.
        content: Book economy class for flights under six hours and premium economy for longer flights, through the travel desk.
      - id: hotels
        title: Hotels
        summary: Nightly hotel limits by city.
        content: A hotel night may cost up to 180 euros in most cities and up to 250 euros in London, Paris and New York.
  - id: office
    title: Office
    summary: {office_summary}
    children:
      - id: desks
        title: Desks
        summary: Booking a desk in the office for a day.
        content: Desks are booked for a whole day in the office app. A desk left empty by ten in the morning is released to others.
      - id: parking
        title: Parking
        summary: Parking spaces in the garage under the office.
        content: The garage under the office has forty parking spaces, booked in the office app like desks; electric cars charge for free.
"""
QUESTIONS = """\
corpus: c.yaml
questions:
  - id: refund-days
    query: How many business days until my refund is paid back to my card?
    expect: [refunds]
  - id: london-hotel
    query: How much can a hotel night in London cost?
    expect: [hotels]
"""
MISLEADING = "Refund payments back to your card in business days."


def corpus_files(tmp_path: Path, *, office_summary: str = "Desks and parking in the office.",
                 money_title: str = "Other topics") -> Path:
    (tmp_path / "c.yaml").write_text(CORPUS.format(office_summary=office_summary, money_title=money_title),
                                     encoding="utf-8")
    questions = tmp_path / "c.questions.yaml"
    questions.write_text(QUESTIONS, encoding="utf-8")
    return questions


def outcomes(path: Path, model: str = "lexical:strict", judge_name: str = "semantic:default"):  # type: ignore[no-untyped-def]
    questions = load_questions(path)
    assert questions.corpus_path is not None
    corpus = load_corpus(questions.corpus_path)
    judge = judge_for(judge_name, corpus)
    return [judged(o, judge, model) for o in evaluate(corpus, questions.questions, WalkSettings("", model))]


def test_a_branch_whose_title_and_summary_hide_its_content_is_blamed_with_the_sentence_that_matched(tmp_path):
    refund, hotel = outcomes(corpus_files(tmp_path))
    assert hotel.hit and hotel.blame is None and hotel.flat == 1
    assert not refund.hit and refund.miss is not None and refund.miss.missed == "money"
    assert refund.miss.chose == ("travel",)  # lexical:strict matched "business" in Travel's summary
    assert refund.blame is not None
    assert (refund.blame.kind, refund.blame.node) == (BlameKind.MAP_HID, "money")
    assert refund.blame.says == (
        "the map hid it: at the roots, what lies beneath 'Other topics' ranks it 1st of 3 for the query "
        "(\"A refund is paid back to the card you paid with.\"), but its title and summary only 3rd; its title and "
        "summary do not say refund, paid, back, card")
    assert refund.flat == 1  # a flat search over every node finds it first: the tree lost it


def test_a_chosen_branch_whose_summary_promises_what_its_content_lacks_misled_the_walk(tmp_path):
    refund, _ = outcomes(corpus_files(tmp_path, office_summary=MISLEADING, money_title="Money matters"))
    assert refund.miss is not None and refund.miss.chose == ("office",)
    assert refund.blame is not None
    assert (refund.blame.kind, refund.blame.node) == (BlameKind.MAP_MISLED, "office")
    assert refund.blame.says == (
        "the map misled: at the roots, the title and summary of 'Office' rank it 1st of 3 for the query, but what "
        "lies beneath it only 3rd: its summary promises what its content does not hold")


def test_what_was_shown_pointing_to_the_expected_branch_blames_the_navigator(tmp_path):
    # Titled "Money matters", the branch's map points to it by meaning; lexical:strict, matching words, turned away.
    refund, _ = outcomes(corpus_files(tmp_path, money_title="Money matters"))
    assert refund.blame is not None
    assert (refund.blame.kind, refund.blame.node) == (BlameKind.NAVIGATOR, None)
    assert refund.blame.says == ("the navigator erred: at the roots, what it was shown ranks 'Money matters' 1st of 3 "
                                 "(its content 1st), and it chose 'travel'")


def test_a_judge_that_scores_as_the_navigator_does_says_so(tmp_path):
    refund, _ = outcomes(corpus_files(tmp_path), judge_name="lexical:default")
    assert refund.blame is not None and refund.blame.kind is BlameKind.MAP_MISLED and refund.blame.node == "travel"
    assert refund.blame.says.endswith("(the judge is the navigator's own scoring: this says only whether the map or "
                                      "the walk was at fault)")


def test_a_miss_a_limit_made_keeps_its_own_reason(tmp_path):
    path = corpus_files(tmp_path, money_title="Money matters")
    questions = load_questions(path)
    assert questions.corpus_path is not None
    corpus = load_corpus(questions.corpus_path)
    settings = WalkSettings("", "semantic:default", max_nodes_visited=1)
    [refund, _] = [judged(o, judge_for("semantic", corpus), "semantic:default")
                   for o in evaluate(corpus, questions.questions, settings)]
    assert refund.miss is not None and refund.blame is not None
    assert refund.blame.kind is BlameKind.BUDGET and refund.blame.node is None
    assert refund.blame.says == refund.miss.sentence()


def test_the_flat_search_ranks_every_node_and_says_none_for_ids_not_in_the_corpus(tmp_path):
    corpus = load_corpus(corpus_files(tmp_path).parent / "c.yaml")
    judge = judge_for("semantic:default", corpus)
    assert flat_rank(judge, "How much can a hotel night in London cost?", ["hotels"]) == 1
    assert flat_rank(judge, "How much can a hotel night in London cost?", ["nowhere"]) is None
    assert len(judge.flat("anything")) == len(corpus.index)


def test_an_unknown_judge_is_one_line_naming_the_judges_there_are(tmp_path):
    corpus = load_corpus(corpus_files(tmp_path).parent / "c.yaml")
    with pytest.raises(NavigatorConfigError, match="no judge is named 'oracle'"):
        judge_for("oracle", corpus)
    out = run("eval", corpus_files(tmp_path), "--judge", "oracle")
    assert out.returncode == 2
    assert out.stderr == ("reasoning-explorer: error: --judge: no judge is named 'oracle': a judge is one of "
                          "semantic:default (the bundled static embeddings); lexical:default (BM25 over the same "
                          "texts); or a navigator that scores (openai:MODEL)\n")


def test_eval_json_carries_each_misss_blame_its_flat_rank_and_the_counts_by_verdict(tmp_path):
    out = run("eval", corpus_files(tmp_path), "--navigator", "lexical:strict", "--json")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    refund, hotel = document["results"]
    assert refund["blame"]["kind"] == "map-hid" and refund["blame"]["node"] == "money"
    assert refund["blame"]["says"].startswith("the map hid it: at the roots, what lies beneath 'Other topics'")
    assert (refund["flat"], hotel["flat"], hotel["blame"]) == (1, 1, None)
    summary = document["summary"]
    assert (summary["verdicts"], summary["flat_hits_at_3"]) == ({"map-hid": 1}, 2)


def test_eval_text_says_the_verdict_and_the_flat_search_under_each_miss_and_counts_them(tmp_path):
    out = run("eval", corpus_files(tmp_path), "--navigator", "lexical:strict")
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())  # the console wraps long lines
    assert ("refund-days: turned away: at step 3, judging the roots, the navigator chose travel, not money "
            "verdict: the map hid it: at the roots") in text
    assert "a flat search finds it 1st: the walk lost it" in text
    assert "verdicts the map hid it 1" in text
    assert "flat search hit@3 100% (2/2): the judge ranking every node, no tree, beside the walk's 50%" in text


def test_eval_with_no_judge_gives_no_verdict(tmp_path):
    out = run("eval", corpus_files(tmp_path), "--navigator", "lexical:strict", "--judge", "none", "--json")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    assert [r["blame"] for r in document["results"]] == [None, None]
    assert (document["summary"]["verdicts"], document["summary"]["flat_hits_at_3"]) == ({}, None)


def test_the_audit_ranks_a_summary_that_promises_another_branchs_content_weakest(tmp_path):
    corpus = load_corpus(corpus_files(tmp_path, office_summary=MISLEADING).parent / "c.yaml")
    judge = judge_for("semantic:default", corpus)
    assert isinstance(judge, EmbeddingJudge)
    fits = audit(judge)
    assert {f.id for f in fits} == set(corpus.index.ids())  # every node has something beneath it here
    weakest = fits[0]
    assert (weakest.id, weakest.fit, weakest.measure, weakest.other) == ("office", 0.0, "rival", "refunds")
    assert weakest.says.startswith("the summary of 'Office' matches the content under 'Refunds' better than its own")


def test_audit_json_lists_nodes_weakest_first_with_id_fit_and_says(tmp_path):
    corpus_files(tmp_path, office_summary=MISLEADING)
    out = run("audit", tmp_path / "c.yaml", "--json", "--limit", "3")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    assert (document["judge"], document["nodes"]) == ("semantic:default", 9)
    assert document["weakest"][0]["id"] == "office" and len(document["weakest"]) == 3
    assert all(set(n) == {"id", "fit", "measure", "other", "says"} for n in document["weakest"])
    fits = [n["fit"] for n in document["weakest"]]
    assert fits == sorted(fits)


def test_audit_text_and_its_bad_input_in_one_line(tmp_path):
    corpus_files(tmp_path, office_summary=MISLEADING)
    out = run("audit", tmp_path / "c.yaml", "--limit", "2")
    assert out.returncode == 0, out.stderr
    assert "office" in out.stdout and "2 of 9 nodes" in out.stdout
    missing = run("audit", tmp_path / "nowhere.yaml")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "nowhere.yaml" in missing.stderr
    negative = run("audit", tmp_path / "c.yaml", "--limit", "-1")
    assert negative.returncode == 2 and negative.stderr.count("\n") == 1 and "give 0" in negative.stderr


@pytest.mark.parametrize("name", ["handbook", "regulation", "specification", "contract"])
def test_the_audit_runs_on_every_sample_corpus(name):
    corpus = load_corpus(SAMPLES / f"{name}.yaml")
    judge = judge_for("semantic:default", corpus)
    assert isinstance(judge, EmbeddingJudge)
    fits = audit(judge, 5)
    assert len(fits) == 5 and all(f.id in corpus.index for f in fits)
    assert [f.fit for f in fits] == sorted(f.fit for f in fits)


def test_a_kept_result_reads_its_verdict_back_and_a_damaged_one_is_refused_in_words(tmp_path):
    from explorer.walks.evaluation import outcome_from_json, outcome_to_json

    refund, _ = outcomes(corpus_files(tmp_path))
    written = json.loads(json.dumps(outcome_to_json(refund)))
    settings = WalkSettings("", "lexical:strict")
    read = outcome_from_json(written, refund.question, settings)
    assert (read.blame, read.flat) == (refund.blame, 1)
    with pytest.raises(ValueError, match="blame kind 'bogus' is none this explorer knows"):
        outcome_from_json({**written, "blame": {"kind": "bogus", "node": None, "says": ""}}, refund.question, settings)
    with pytest.raises(ValueError, match="'flat' is not a rank"):
        outcome_from_json({**written, "flat": 0}, refund.question, settings)


def test_the_judges_token_sums_are_each_texts_own_tokens_whatever_shares_its_batch():
    from explorer.navigators.embeddings import IN_STEP, bundled_embeddings

    embeddings = bundled_embeddings()
    long_text = " ".join(["refund paid back to the card"] * IN_STEP)  # longer than the tokens summed in step
    texts = ["", " ", "a    b", "  def f():\n        return 1", "Refunds", long_text, "Refunds", "é naïve 12"]
    sums, counts = embeddings.sums(texts)
    for text, total, count in zip(texts, sums, counts, strict=True):
        ids = list(embeddings._token_ids(text))  # the bundled tokenizer, whole text at once
        assert count == len(ids), text
        expected = embeddings._table[ids].astype("float64").sum(axis=0) if ids else 0.0
        assert abs(total - expected).max() < 1e-4, text
    alone, _ = embeddings.sums([long_text])
    reversed_sums, _ = embeddings.sums(texts[::-1])
    assert (alone[0] == sums[5]).all() and (reversed_sums[::-1] == sums).all()


def test_a_summary_that_echoes_one_child_is_among_the_weakest_and_says_so(tmp_path):
    corpus = load_corpus(corpus_files(tmp_path, office_summary="Booking a desk in the office for a day.").parent
                         / "c.yaml")  # the summary of its first child, Desks: it says nothing of Parking
    judge = judge_for("semantic:default", corpus)
    assert isinstance(judge, EmbeddingJudge)
    office = next(f for f in audit(judge, 2) if f.id == "office")
    assert (office.measure, office.other) == ("echo", "desks")
    assert office.says.startswith("the title and summary of 'Office' echo what its child 'Desks' shows more than "
                                  "they fit all that lies beneath it")


PAGEINDEX_TREE = {"doc_name": "handbook.pdf", "structure": [
    {"node_id": "0001", "title": "Refunds", "start_index": 1, "end_index": 4,
     "summary": "Booking business flights and hotel nights for a trip.", "nodes": [
         {"node_id": "0002", "title": "Card refunds", "start_index": 1, "end_index": 2,
          "summary": "Money paid back to the card you paid with, within five business days."},
         {"node_id": "0003", "title": "Refund requests", "start_index": 3, "end_index": 4,
          "summary": "How to ask for a refund of a purchase, and what to send with the request."}]},
    {"node_id": "0004", "title": "Travel", "start_index": 5, "end_index": 8,
     "summary": "Business trips: flights and hotels.", "nodes": [
         {"node_id": "0005", "title": "Flights", "start_index": 5, "end_index": 6,
          "summary": "Economy class on short flights, premium economy on long ones."},
         {"node_id": "0006", "title": "Hotels", "start_index": 7, "end_index": 8,
          "summary": "Nightly hotel limits by city, up to 250 euros in London."}]}]}


def test_a_pageindex_tree_without_text_is_audited_map_against_map_and_says_so(tmp_path):
    path = tmp_path / "handbook_structure.json"
    path.write_text(json.dumps(PAGEINDEX_TREE), encoding="utf-8")
    out = run("audit", path, "--json", "--limit", "1")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    assert (document["with_content"], document["with_summary"]) == (0, 6)  # "Covers pages 1–4 …" is no content
    assert document["compared"].startswith("no node has content: each node's title and summary against its "
                                           "descendants' titles and summaries only")
    weakest = document["weakest"][0]
    assert (weakest["id"], weakest["measure"], weakest["other"]) == ("0001", "rival", "0004")
    assert weakest["says"].startswith("the summary of 'Refunds' matches the titles and summaries under 'Travel' "
                                      "better than its own")
    text = run("audit", path, "--limit", "1")
    assert "Compared: no node has content" in " ".join(text.stdout.split())


def test_a_pageindex_tree_of_titles_alone_is_audited_by_its_titles_and_says_so(tmp_path):
    tree = json.loads(json.dumps(PAGEINDEX_TREE))
    for root in tree["structure"]:
        for node in [root, *root["nodes"]]:
            del node["summary"]
    path = tmp_path / "titles_structure.json"
    path.write_text(json.dumps(tree), encoding="utf-8")
    out = run("audit", path, "--json", "--limit", "0")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    assert (document["with_content"], document["with_summary"]) == (0, 0)
    assert document["compared"].startswith("no node has content or a summary: each node's title against the titles "
                                           "beneath it only")
    assert {n["id"] for n in document["weakest"]} == {"0001", "0004"}  # the leaves have nothing beneath them
    assert all(n["says"].startswith(("the title of 'Refunds' ", "the title of 'Travel' ")) for n in document["weakest"])


def test_what_lies_beneath_a_node_is_its_own_content_and_the_title_summary_and_content_of_every_node_below(tmp_path):
    import numpy as np

    corpus = load_corpus(corpus_files(tmp_path).parent / "c.yaml")
    judge = judge_for("semantic:default", corpus)
    assert isinstance(judge, EmbeddingJudge)
    shown, own, below = judge.token_sums
    row = judge.rows()
    for node in corpus.index.ids():
        subtree = [node, *(d for d in corpus.index.ids() if node in corpus.index.path(d) and d != node)]
        expected = own[row[node]] + sum((shown[row[d]] + own[row[d]] for d in subtree[1:]), np.zeros_like(own[0]))
        assert np.allclose(below[row[node]], expected, atol=1e-4), node
    assert [judge.parents[row[n]] for n in ("money", "refunds", "parking")] == [-1, row["money"], row["office"]]


def test_a_node_no_measure_applies_to_is_not_listed_as_weak(tmp_path):
    """A corpus of one node: nothing to rank it against, no child to compare with; the audit lists nothing rather
    than a fit of 2 'just ahead of another node (by inf)'."""
    path = tmp_path / "one.yaml"
    path.write_text("source: t\ntitle: One\nnodes:\n  - id: only\n    title: Only\n    summary: The only node.\n"
                    "    content: Refunds are paid within ten days.\n", encoding="utf-8")
    judge = judge_for("semantic:default", load_corpus(path))
    assert isinstance(judge, EmbeddingJudge)
    assert audit(judge) == []
    out = run("audit", path, "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["weakest"] == []
