"""The four sample corpora and their question sets: loadable, large, deep, complete and honest."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from explorer.corpora import load_corpus
from explorer.corpora.questions import load_questions
from explorer.corpora.validate import validate

SAMPLES = Path(__file__).resolve().parents[3] / "sample_corpora"
NAMES = ["handbook", "regulation", "specification", "contract"]

# Words that carry no content, and a light stemmer, for "shares no content word".
STOP_WORDS = set(
    ["a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "for", "by", "with", "at", "from", "as", "is", "are", "was", "were", "be", "been", "being", "it", "its", "this", "that", "these", "those", "i", "my", "me", "we", "our", "us", "you", "your", "he", "she", "they", "them", "their", "what", "which", "who", "whom", "how", "when", "where", "why", "do", "does", "did", "can", "could", "should", "would", "will", "shall", "may", "might", "must", "not", "no", "if", "then", "than", "so", "any", "all", "each", "per", "about", "into", "over", "under", "up", "down", "out", "off", "there", "here", "have", "has", "had", "get", "got", "am", "just", "too", "very", "also", "one", "our", "more", "most", "much", "many", "some", "such", "only", "own", "same", "other", "i'm", "we're", "it's", "don't", "does"]
)


def content_stems(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {w[:5] for w in words if w not in STOP_WORDS and len(w) > 2}


@pytest.mark.parametrize("name", NAMES)
def test_each_sample_corpus_loads_clean_and_is_big_and_deep(name):
    report = validate(SAMPLES / f"{name}.yaml")
    assert report.errors == ()
    assert report.warnings == ()
    corpus = report.corpus
    assert corpus.source == name
    assert report.stats.nodes >= 80
    assert report.stats.depth >= 4  # roots at depth 0: five levels of nodes
    for node_id in corpus.index.ids():
        title, summary = corpus.title_of(node_id), corpus.summary_of(node_id)
        content = corpus.index[node_id].content
        assert title.strip() and title != node_id, node_id
        assert summary.strip() and ". " not in summary.rstrip("."), f"{node_id}: one sentence"
        assert content.strip(), node_id
        if not corpus.index.has_children(node_id):
            assert len(content) >= 200, f"{node_id}: a leaf holds a real paragraph"


def test_the_handbook_keeps_the_seeds_billing_and_refunds():
    corpus = load_corpus(SAMPLES / "handbook.yaml")
    assert corpus.index.parent("refunds").id == "billing"
    assert "14 days" in corpus.summary_of("refunds")
    assert corpus.index["refunds"].content.startswith("Refunds are issued within 14 days.")


@pytest.mark.parametrize("name", NAMES)
def test_each_question_set_names_existing_nodes_and_a_third_share_no_content_word(name):
    questions = load_questions(SAMPLES / f"{name}.questions.yaml")
    assert questions.corpus_path == (SAMPLES / f"{name}.yaml").resolve()
    corpus = load_corpus(questions.corpus_path)
    assert questions.check(corpus) == []
    assert len(questions.questions) >= 15
    disjoint = 0
    for q in questions.questions:
        expected = set()
        for node_id in q.expect:
            expected |= content_stems(corpus.title_of(node_id) + " " + corpus.summary_of(node_id))
        if not content_stems(q.query) & expected:
            disjoint += 1
    assert disjoint * 3 >= len(questions.questions), f"{disjoint} of {len(questions.questions)}"
