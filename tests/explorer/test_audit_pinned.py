"""The audit's ranking pinned on the sample corpora: the five weakest nodes of each, their place, measure, rival and
words, exactly as the audit gave them before it was made faster (issue 46 point 4): a speed-up must not move them.
A PageIndex fixture's (``../shared``, when present) is pinned too: a map of titles and summaries alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.corpora import load_corpus
from explorer.navigators.judge import EmbeddingJudge, judge_for
from explorer.walks.audit import audit
from tests.samples import SAMPLES

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "pageindex"

PINNED = {
    "handbook": [
        ('non-refundable-items', 0, 'rival', 'seats',
         "the summary of 'Non-refundable items' matches the content under 'Seats' better than its own (by "
         '0.326)'),
        ('data-privacy', 0, 'echo', 'privacy-requests',
         "the title and summary of 'Data and privacy' echo what its child 'Privacy requests' shows more "
         'than they fit all that lies beneath it (by 0.133)'),
        ('parental-leave', 0, 'child', 'parental-leave-pay',
         "the summary of 'Parental leave' matches its child 'Parental leave pay' better than all that lies"
         ' beneath it (by 0.096)'),
        ('subprocessors', 1, 'rival', 'privacy-requests',
         "the summary of 'Subprocessors' matches the content under 'Privacy requests' better than its own "
         '(by 0.245)'),
        ('sla-service-credits', 1, 'child', 'claiming-service-credits',
         "the summary of 'Service credits' matches its child 'Claiming service credits' better than all "
         'that lies beneath it (by 0.052)'),
    ],
    "regulation": [
        ('art-1', 0, 'rival', 'art-35',
         "the summary of 'Article 1 — Subject matter' matches the content under 'Article 35 — Evaluation "
         "and review' better than its own (by 0.205)"),
        ('art-12', 0, 'child', 'art-12-1',
         "the summary of 'Article 12 — End of support' matches its child 'Paragraph 1 — Advance notice to "
         "users' better than all that lies beneath it (by 0.048)"),
        ('title-2', 0, 'echo', 'ch-2-2',
         "the title and summary of 'Title II — Obligations of economic operators' echo what its child "
         "'Chapter 2 — Importers, distributors and online marketplaces' shows more than they fit all that "
         'lies beneath it (by 0.223)'),
        ('art-36-2', 1, 'rival', 'art-25',
         "the summary of 'Paragraph 2 — General date of application' matches the content under 'Article 25"
         " — Legacy devices' better than its own (by 0.176)"),
        ('art-10-3', 1, 'vague', None,
         "the title and summary of 'Paragraph 3 — Discontinuation before the end date' say little in "
         'particular: they fit what lies beneath it only 0.5 standard deviations better than what lies '
         'elsewhere'),
    ],
    "specification": [
        ('example-handshake', 0, 'rival', 'framing',
         "the summary of 'A.1 Handshake trace' matches the content under '3. Framing' better than its own "
         '(by 0.307)'),
        ('flow-control-windows', 0, 'child', 'connection-window',
         "the summary of '6.2 Flow control windows' matches its child '6.2.2 Connection window' better "
         'than all that lies beneath it (by 0.031)'),
        ('auth-fields', 0, 'echo', 'auth-header-fields',
         "the title and summary of '5.3.1 AUTH fields' echo what its child '5.3.1.1 Fixed AUTH fields' "
         'shows more than they fit all that lies beneath it (by 0.302)'),
        ('messages', 1, 'rival', 'framing-changes-v1',
         "the summary of '5. Messages' matches the content under 'B.1 Framing changes' better than its own"
         ' (by 0.263)'),
        ('ack-timing', 1, 'vague', None,
         "the title and summary of '5.6.3 ACK timing' say little of what lies beneath it: they fit what "
         'lies elsewhere better (0.3 standard deviations)'),
    ],
    "contract": [
        ('def-contract-year', 0, 'rival', 'liability',
         "the summary of '1.6 Contract Year' matches the content under '9. Limitation of liability' better"
         ' than its own (by 0.219)'),
        ('s1-exclusions', 0, 'vague', None,
         "the title and summary of '3. Exclusions' say little of what lies beneath it: they fit what lies "
         'elsewhere better (0.2 standard deviations)'),
        ('liability-caps', 0, 'child', 'cap-data-protection',
         "the summary of '9.2 Financial caps' matches its child '9.2.2 Data protection and confidentiality"
         " cap' better than all that lies beneath it (by 0.040)"),
        ('s2-service-level-table', 0, 'echo', 's2-availability-levels',
         "the title and summary of '2. Service level table' echo what its child '2.1 Platform service "
         "levels' shows more than they fit all that lies beneath it (by 0.244)"),
        ('dispute-escalation', 1, 'vague', None,
         "the title and summary of '13.2 Escalation' say little of what lies beneath it: they fit what "
         'lies elsewhere better (0.2 standard deviations)'),
    ],
}
"""Per sample corpus, its five weakest: id, place (``fit`` times the corpus's nodes: ``fit`` is a place as a share),
measure, the node it lost to, and what it says."""


def audited(path: Path, limit: int | None) -> tuple[int, list[tuple[str, int, str, str | None, str]]]:
    corpus = load_corpus(path)
    judge = judge_for("semantic:default", corpus)
    assert isinstance(judge, EmbeddingJudge)
    count = len(corpus.index)
    fits = audit(judge, limit)
    places = [(f.id, round(f.fit * count), f.measure, f.other, f.says) for f in fits]
    assert all(place == f.fit * count for (_, place, *_), f in zip(places, fits, strict=True))
    return count, places


@pytest.mark.parametrize("name", sorted(PINNED))
def test_the_five_weakest_of_each_sample_corpus_stay_as_pinned(name):
    _, places = audited(SAMPLES / f"{name}.yaml", 5)
    assert places == PINNED[name]


def test_a_pageindex_fixture_of_titles_and_summaries_keeps_its_five_weakest():
    path = FIXTURES / "q1-fy25-earnings_structure.json"
    if not path.is_file():
        pytest.skip(f"{path} is absent (the shared fixtures are not here)")
    assert json.loads(path.read_text(encoding="utf-8"))["structure"]  # the fixture as the pins were made from it
    count, places = audited(path, 5)
    assert count == 41
    assert [(node, place, measure, other) for node, place, measure, other, _ in places] == [
        ("0010", 0, "echo", "0011"), ("0000", 0, "child", "0001"), ("0021", 1, "echo", "0022"),
        ("0012", 2, "child", "0013"), ("0035", 2, "echo", "0036")]
