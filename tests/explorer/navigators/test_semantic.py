"""The offline semantic navigator: paraphrase understood, deterministic, cancellable, offline, through the registry."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core import (
    CancellationToken,
    NavigatorRequest,
    NodeView,
    ReasoningRAGStrategy,
    RetrievalCancelled,
    TreeNavigatorError,
    TreeNavigatorRegistry,
    drain,
)
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.navigators.scored import scores_in
from explorer.navigators.semantic import SemanticNavigator

ROOT = Path(__file__).resolve().parents[3]

CANDIDATES = (
    ("shipping", "Shipping", "Delivery times and tracking of parcels."),
    ("refunds", "Refunds", "Refunds are issued within 14 days of a request."),
    ("accounts", "Accounts and sign-in", "Creating accounts, signing in and recovering access."),
    ("security", "Security", "Reporting incidents and keeping devices safe."),
)
MONEY_BACK = "How long until I get my money back?"


def request(query, candidates=CANDIDATES, model="semantic:default", remaining=10, token=None, current=None):
    views = tuple(NodeView(*c) for c in candidates)
    return NavigatorRequest(query, model, current, views, remaining, token or CancellationToken())


@pytest.mark.parametrize("model", ["semantic:default", "semantic:hybrid", "semantic:wide", "semantic:",
                                   "semantic: default "])
def test_the_registry_resolves_semantic_models_to_the_semantic_navigator(model):
    assert type(TreeNavigatorRegistry().resolve(model)) is SemanticNavigator
    assert type(resolve_navigator(model)) is SemanticNavigator


@pytest.mark.parametrize("model", ["semantic:nonsense", "semantics:default", "semantic"])
def test_unknown_semantic_variants_resolve_to_nobody(model):
    with pytest.raises(TreeNavigatorError, match="no navigator supports"):
        TreeNavigatorRegistry().resolve(model)


def test_semantic_picks_the_paraphrased_branch_where_lexical_finds_no_shared_word():
    lexical = resolve_navigator("lexical:default").choose(request(MONEY_BACK, model="lexical:default"))
    assert lexical.selected == ()
    choice = resolve_navigator("semantic:default").choose(request(MONEY_BACK))
    assert choice.selected == ("refunds", "accounts", "shipping")
    assert choice.rationale == (
        "most similar to the query: refunds 0.40, accounts 0.19, shipping 0.10 — next: security 0.01")


def test_the_transcript_holds_the_query_every_score_the_rule_and_the_model():
    choice = resolve_navigator("semantic:default").choose(request(MONEY_BACK))
    transcript = dict(choice.transcript)
    assert [label for label, _ in choice.transcript] == ["query", "scores", "rule", "model", "scored"]
    assert transcript["query"] == MONEY_BACK
    assert transcript["scores"] == "refunds 0.405\naccounts 0.194\nshipping 0.099\nsecurity 0.006"
    assert transcript["rule"] == ("the 3 best roots, then below them the best child, at most one per visit left; "
                                  "score = cosine similarity of the query to the title and summary")
    assert transcript["model"].startswith("wordllama 0.4") and transcript["model"].endswith(" l2_supercat 256-d")
    scored = scores_in(choice.transcript)
    assert scored is not None and scored.kind == "cosine similarity"
    assert [(node, round(score, 3)) for node, score in scored.by_id.items()] == [
        ("refunds", 0.405), ("accounts", 0.194), ("shipping", 0.099), ("security", 0.006)]


def test_three_roots_then_the_single_best_child_below_them():
    # One answer needs one branch: below the roots the walk goes on down the best child only (issue 19).
    below = NodeView("billing", "Billing", "Money matters")
    for model in ("semantic:default", "semantic:hybrid"):
        nav = resolve_navigator(model)
        assert nav.choose(request(MONEY_BACK, model=model)).selected == ("refunds", "accounts", "shipping")
        assert nav.choose(request(MONEY_BACK, model=model, current=below)).selected == ("refunds",)
    wide = resolve_navigator("semantic:wide")
    assert wide.choose(request(MONEY_BACK, model="semantic:wide", current=below)).selected == (
        "refunds", "accounts", "shipping")


def test_semantic_takes_no_more_branches_than_visits_left():
    nav = resolve_navigator("semantic:default")
    assert nav.choose(request(MONEY_BACK, remaining=1)).selected == ("refunds",)
    assert nav.choose(request(MONEY_BACK, remaining=2)).selected == ("refunds", "accounts")
    assert nav.choose(request(MONEY_BACK, candidates=CANDIDATES[:2])).selected == ("refunds", "shipping")


def test_hybrid_lets_a_shared_word_break_a_near_tie_and_says_so():
    candidates = (
        ("lockers", "Pickup points", "Collecting a parcel from a locker near you."),
        ("customs", "Customs", "Duties and import taxes on parcels from abroad."),
    )
    query = "is there tax on my parcel"
    default = resolve_navigator("semantic:default").choose(request(query, candidates, remaining=1))
    hybrid = resolve_navigator("semantic:hybrid").choose(request(query, candidates, model="semantic:hybrid",
                                                                 remaining=1))
    assert default.selected == ("lockers",)
    assert default.rationale == "most similar to the query: lockers 0.36 — next: customs 0.35"
    assert hybrid.selected == ("customs",)
    assert hybrid.rationale == ("most similar to the query: customs 0.45 (similarity 0.35 + words 0.10: tax, "
                                "parcel) — next: lockers 0.38 (similarity 0.36 + words 0.02: parcel)")
    assert dict(hybrid.transcript)["rule"].endswith(
        "score = cosine similarity to the title and summary + 0.1 among the roots, 0.3 below × BM25 / the offer's "
        "best BM25")
    scored = scores_in(hybrid.transcript)
    assert scored is not None and scored.kind == "cosine similarity + BM25 share"
    assert list(scored.by_id) == ["customs", "lockers"] and round(scored.by_id["customs"], 2) == 0.45
    # Below the roots, siblings share their parent's topic: their own words weigh more.
    below = resolve_navigator("semantic:hybrid").choose(request(query, candidates, model="semantic:hybrid",
                                                                current=NodeView("orders", "Orders", "")))
    assert below.rationale.startswith("most similar to the query: customs 0.65 (similarity 0.35 + words 0.30")


def test_a_query_without_words_chooses_nothing_and_says_why():
    choice = resolve_navigator("semantic:default").choose(request(""))
    assert choice.selected == ()
    assert choice.rationale == "the query has no words to compare with the candidates"


def test_the_same_request_gets_the_same_answer_every_time():
    nav = resolve_navigator("semantic:hybrid")
    answers = {nav.choose(request("refund my parcel", model="semantic:hybrid")) for _ in range(5)}
    assert len(answers) == 1


@pytest.mark.process
def test_the_same_request_gets_the_same_answer_in_another_process():
    script = (
        "import json\n"
        "from core import NavigatorRequest, NodeView\n"
        "from explorer.navigators import resolve_navigator\n"
        f"views = tuple(NodeView(*c) for c in {CANDIDATES!r})\n"
        f"choice = resolve_navigator('semantic:hybrid').choose(NavigatorRequest({MONEY_BACK!r}, 'semantic:hybrid', "
        "None, views, 10))\n"
        "print(json.dumps([choice.selected, choice.rationale, choice.transcript]))\n"
    )
    here = resolve_navigator("semantic:hybrid").choose(request(MONEY_BACK, model="semantic:hybrid"))
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=env, check=True,
                         timeout=300)
    selected, rationale, transcript = json.loads(out.stdout)
    assert (tuple(selected), rationale, tuple(map(tuple, transcript))) == (here.selected, here.rationale,
                                                                           here.transcript)


def test_a_cancelled_token_stops_it_before_any_work():
    token = CancellationToken()
    token.cancel()
    with pytest.raises(RetrievalCancelled):
        resolve_navigator("semantic:default").choose(request(MONEY_BACK, token=token))


class Tripwire(str):
    """A title that trips the walk's token when the navigator first embeds it, and counts titles embedded after."""

    token: CancellationToken
    seen: list[str]

    def __hash__(self) -> int:  # the embedding cache hashes each title it is given
        if self.token.cancelled:
            self.seen.append(str(self))
        elif str(self) == "Topic 10":
            self.token.cancel()
        return str.__hash__(self)


def test_a_cancel_while_scoring_a_wide_offer_stops_within_a_few_hundred_candidates():
    token = CancellationToken()
    seen: list[str] = []
    Tripwire.token, Tripwire.seen = token, seen
    candidates = tuple((f"n{i}", Tripwire(f"Topic {i}"), f"summary number {i}") for i in range(5000))
    with pytest.raises(RetrievalCancelled):
        resolve_navigator("semantic:default").choose(request("topics", candidates, token=token))
    assert 0 < len(set(seen)) < 256  # titles embedded after the cancel


def write_corpus(tmp_path):
    corpus = tmp_path / "shop.yaml"
    corpus.write_text(
        "source: shop\n"
        "nodes:\n"
        "  - {id: accounts, title: Accounts, summary: 'Passwords and two-factor authentication.', content: c}\n"
        "  - id: billing\n"
        "    title: Billing\n"
        "    summary: Invoices, payment methods and refunds.\n"
        "    content: c\n"
        "    children:\n"
        "      - {id: invoices, title: Invoices, summary: 'When invoices are issued and what they show.', content: c}\n"
        "      - {id: refunds, title: Refunds, summary: 'Refunds are issued within 14 days.', content: c}\n"
        "      - {id: taxes, title: Taxes, summary: 'Sales tax and VAT.', content: c}\n"
        "  - {id: shipping, title: Shipping, summary: 'Delivery times and tracking of parcels.', content: c}\n"
    )
    return load_corpus(corpus)


def stops(model, corpus, budget):
    walk = ReasoningRAGStrategy(corpus.index, resolve_navigator(model), model, max_nodes_visited=budget)
    return [(s.reason.value, tuple(s.path), s.branch, s.landed) for s in drain(walk.walk(MONEY_BACK)).stops]


@pytest.mark.parametrize("model", ["semantic:default", "semantic:hybrid"])
def test_a_semantic_walk_of_two_visits_lands_the_paraphrased_answer_where_lexical_stops_at_once(tmp_path, model):
    corpus = write_corpus(tmp_path)
    assert stops("lexical:default", corpus, 2) == [("navigator_stopped", (), None, None)]
    assert stops(model, corpus, 2) == [
        ("leaf", ("billing", "refunds"), None, "refunds"),
        ("visit_budget_exhausted", (), "shipping", None),  # it took two roots: as many as visits left
    ]


OFFLINE = """
import logging, pathlib, sys
def refuse(event, args):
    if event in ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname"):
        raise AssertionError(f"the semantic navigator reached for the network: {event} {args}")
sys.addaudithook(refuse)
from core import NavigatorRequest, NodeView
from explorer.navigators import resolve_navigator
nav = resolve_navigator("semantic:default")
views = (NodeView("refunds", "Refunds", "Money back within 14 days."), NodeView("support", "Support", "Help."))
print(nav.choose(NavigatorRequest("refund", "semantic:default", None, views, 5)).selected)
print(logging.getLogger().handlers, logging.getLogger().level)
print(sorted(p.name for p in pathlib.Path.home().iterdir()))
"""


@pytest.mark.process
def test_the_model_loads_from_the_wheel_without_the_network_a_cache_or_a_logging_side_effect(tmp_path):
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", OFFLINE], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["('refunds', 'support')", "[] 30", "[]"]
    assert out.stderr == ""


@pytest.mark.process
def test_without_wordllama_the_cli_says_so_in_one_line_and_exits_2():
    script = (
        "import sys\n"
        "sys.modules['wordllama'] = None  # what an install without the package looks like to an import\n"
        "from explorer.cli.main import main\n"
        "sys.exit(main(['walk', 'sample_corpora/handbook.yaml', 'q', '--navigator', 'semantic:default']))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("reasoning-explorer: error: semantic: needs the "
                               "wordllama package (")
    assert lines[0].endswith("install it with `pip install 'wordllama>=0.4,<0.5'` (it ships the model in its wheel)")


ONCE = """
import threading
from explorer.navigators.embeddings import bundled_embeddings
barrier = threading.Barrier(8)
got = []
def load():
    barrier.wait()
    got.append(bundled_embeddings())
threads = [threading.Thread(target=load) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print(len(got), len({id(m) for m in got}), got[0] is bundled_embeddings())
"""


@pytest.mark.process
def test_threads_that_ask_for_the_model_at_once_share_one_load():
    out = subprocess.run([sys.executable, "-c", ONCE], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["8", "1", "True"]
