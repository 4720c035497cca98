"""Turning text into comparable terms: tokens, stop words dropped, a light stemmer.

Deliberately simple and predictable: the lexical navigator explains its
choices by the terms it matched, so a person must be able to see why
"refunded" matched "Refunds".
"""

from __future__ import annotations

import re
from functools import lru_cache

_ENGLISH = """a about above after again against all also am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during
each else ever every few for from further get gets getting got had hadn't has hasn't have haven't having he her here
hers herself him himself his how i i'd i'll i'm i've if in into is isn't it it's its itself just let's me might more
most much must mustn't my myself need no nor not now of off on once only or other ought our ours ourselves out over
own per please same shall shan't she should shouldn't so some such than that that's the their theirs them themselves
then there there's these they they'd they'll they're they've this those through to too under until up upon us very
was wasn't we we'd we'll we're we've were weren't what what's when when's where where's whether which while who who's
whom why why's will with within without won't would wouldn't yet you you'd you'll you're you've your yours yourself
yourselves"""

# How people phrase questions, not what they ask about.
_PHRASING = """happen happens happened tell know want wants like thing things way someone somebody something anything
exactly really actually still okay ok"""

STOP_WORDS = frozenset(_ENGLISH.split()) | frozenset(_PHRASING.split())

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_SUFFIXES = (
    "ational", "ization", "ations", "ation", "nesses", "ness", "ments", "ment", "ingly", "ings", "ing",
    "edly", "ied", "ies", "ed", "ers", "er", "ly", "es", "s",
)
_KEEP = frozenset({"business", "news", "series", "species"})


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix stripper: refunds, refunded, refunding → refund; issue, issued, issues → issu."""
    if len(word) <= 3 or word.isdigit() or word in _KEEP:
        return word
    for suffix in _SUFFIXES:
        if suffix == "s" and word.endswith(("ss", "us", "is")):
            continue  # class, status, analysis: not plurals
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if suffix in ("ies", "ied"):
                base += "y"
            break
    else:
        base = word
    if base.endswith("e") and len(base) > 3:
        base = base[:-1]
    doubled = len(base) > 3 and base[-1] == base[-2] and base[-1] not in "aeiou"
    if doubled and (base[-1] not in "ls" or len(base) > 5):
        base = base[:-1]  # stopped → stop, cancelled → cancel; but "fall", "pass" stay
    return base


def terms(text: str) -> list[str]:
    """Content terms of ``text`` in order: lower-cased, stop words dropped, stemmed."""
    out = []
    for token in _TOKEN.findall(text.lower()):
        token = token.split("'")[0] if token.endswith("'s") else token
        if token in STOP_WORDS or (len(token) < 2 and not token.isdigit()):
            continue
        out.append(stem(token))
    return out
