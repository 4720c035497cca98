"""Summaries written by an LLM navigator's model (``--summaries openai:MODEL``, ``ollama:``, ``vllm:``,
``local:MODEL``) in place of the extractive ones, for the nodes of a PDF's tree.

Each node that holds text or sections is one request: the system prompt below, then its title, the titles of the
sections under it and the start of its text (:data:`TEXT_CHARS`); the answer, spaces collapsed, is its summary
(cut at :data:`SUMMARY_MAX_CHARS`). The requests are the navigator's own (:meth:`~.openai_compat.
OpenAICompatibleNavigator.complete`): the model id's settings, retries and deadline, and its response cache, so a
second import of the same PDF with the same model asks nothing. A node whose request fails (the server down, an
error status, an answer with no text) keeps its extractive summary, and the :class:`SummaryTally` says which and
why; the import goes on. After :data:`GIVE_UP` failures in a row with no answer between them (a server that is
not there, a wrong address that times out each time), the nodes left are not asked and keep theirs too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from core import CancellationToken, TreeNavigator

from ..corpora.progress import Progress, Stage
from ..safe_text import one_line
from .errors import NavigatorConfigError
from .llm.errors import NavigatorHTTPError
from .llm.prompt import Messages
from .openai_compat import OpenAICompatibleNavigator

__all__ = ["SUMMARY_PREFIXES", "SummaryTally", "SummaryWriter", "WrittenSummary", "summary_request", "summary_writer",
           "write_summary"]

SUMMARY_PREFIXES: Final = ("openai:", "ollama:", "vllm:", "local:")
TEXT_CHARS: Final = 6000
"""How much of a node's text a request holds (its start: a text says what it is about first)."""
SUMMARY_MAX_CHARS: Final = 600
MAX_TOKENS: Final = 200
GIVE_UP: Final = 3
SYSTEM: Final = (
    "You summarise one section of a document for a reader who must decide, from its title and summary alone, "
    "whether the answer to a question lies in this section or in the sections under it. Answer with the summary "
    "only: one or two plain sentences, at most 300 characters, saying what the section and the sections under it "
    "cover. No preamble, no lists, no markdown."
)


@dataclass(frozen=True)
class WrittenSummary:
    """One summary written by ``model``: the request ``sent`` (system, then user), the ``answer`` as the model gave
    it, the ``summary`` made of it (spaces collapsed, cut at :data:`SUMMARY_MAX_CHARS`), and whether the response
    cache gave it."""

    model: str
    sent: Messages
    answer: str
    summary: str
    cached: bool


def summary_request(title: str, children: list[str], text: str) -> Messages:
    """The request for the summary of a section titled ``title``, with the titles of the sections under it and its
    text (its start: :data:`TEXT_CHARS`)."""
    parts = [f"Section: {title}"]
    if children:
        parts.append("Sections under it:\n" + "\n".join(f"- {child}" for child in children))
    if text.strip():
        cut = text[:TEXT_CHARS] + ("\n[…]" if len(text) > TEXT_CHARS else "")
        parts.append(f"Its text:\n{cut}")
    parts.append("Write its summary.")
    return (("system", SYSTEM), ("user", "\n\n".join(parts)))


def write_summary(navigator: OpenAICompatibleNavigator, model: str, sent: Messages,
                  token: CancellationToken | None = None) -> WrittenSummary:
    """The summary of one section written by ``model`` from its request ``sent`` (:func:`summary_request`), asked
    through ``navigator`` (:meth:`~.openai_compat.OpenAICompatibleNavigator.complete`: its settings, retries and
    response cache); :class:`NavigatorHTTPError` in one line when it cannot be had."""
    answer, cached = navigator.complete(model, sent, MAX_TOKENS, token)
    return WrittenSummary(model, sent, answer, _cut(" ".join(answer.split())), cached)


@dataclass
class SummaryTally:
    """What writing the summaries took: the requests (one a node), how many the response cache answered and how
    many were asked anew, and the nodes whose request failed, each with its one line (their extractive summary
    kept)."""

    model: str
    cached: int = 0
    new: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    not_asked: int = 0
    """Nodes not asked once :data:`GIVE_UP` requests in a row had failed."""

    @property
    def requests(self) -> int:
        return self.cached + self.new + len(self.failed)

    def line(self) -> str:
        """``summaries by openai:m: 12 requests, 4 cached, 7 new, 1 failed (its extractive summary kept)``."""
        failed = len(self.failed)
        said = f", {failed:,} failed" if failed else ""
        if self.not_asked:
            said += f", {self.not_asked:,} not asked after {GIVE_UP} failures in a row"
        kept = failed + self.not_asked
        said += f" ({'its' if kept == 1 else 'their'} extractive summary kept)" if kept else ""
        return (f"summaries by {self.model}: {self.requests:,} request{'s' if self.requests != 1 else ''}, "
                f"{self.cached:,} cached, {self.new:,} new{said}")

    def failures(self, most: int = 5) -> list[str]:
        """A line for each failed node, the first ``most`` of them, then how many more."""
        lines = [f"the summary of node {node_id!r} was not written by {self.model} ({why}); its extractive summary "
                 "is kept" for node_id, why in self.failed[:most]]
        if len(self.failed) > most:
            lines.append(f"… and {len(self.failed) - most:,} more nodes whose summary was not written by {self.model}")
        return lines


class SummaryWriter:
    """Writes the summaries of a PageIndex tree's nodes (as ``json.load`` reads it, the import's) with ``model``,
    asked through ``navigator`` (see the module's docstring)."""

    def __init__(self, model: str, navigator: OpenAICompatibleNavigator) -> None:
        self.model = model
        self.navigator = navigator
        self.tallies: list[SummaryTally] = []
        """What each tree written when called as a load's hook took (``load_corpus(summaries=writer)``)."""

    def close(self) -> None:
        """Ends its navigator's client (its request thread); the program calls it once the summaries are written."""
        self.navigator.close()

    def __call__(self, tree: Any, progress: Progress) -> None:
        """As a load's summary hook: :meth:`write`, its tally kept in :attr:`tallies`."""
        self.tallies.append(self.write(tree, progress))

    def write(self, tree: Any, progress: Progress | None = None) -> SummaryTally:
        """Each node's ``summary`` written by the model, in place (a failed one left as it was)."""
        progress = progress or Progress(None)
        nodes = _preorder(tree)
        tally = SummaryTally(self.model)
        progress.start(Stage.SUMMARISING, len(nodes))
        in_a_row = 0
        for number, node in enumerate(nodes, start=1):
            children = [str(child.get("title", "")) for child in _children(node)]
            text = str(node.get("text") or "")
            if in_a_row >= GIVE_UP:
                tally.not_asked += bool(text.strip() or children)
            elif text.strip() or children:
                try:
                    written = write_summary(self.navigator, self.model,
                                            summary_request(str(node.get("title", "")), children, text))
                except NavigatorHTTPError as exc:
                    tally.failed.append((str(node.get("node_id", "")), one_line(str(exc))))
                    in_a_row += 1
                else:
                    node["summary"] = written.summary
                    tally.cached += written.cached
                    tally.new += not written.cached
                    in_a_row = 0
            progress.tick(number)
        progress.finish(len(nodes))
        return tally


def summary_writer(model: str, navigator: TreeNavigator) -> SummaryWriter:
    """The writer of ``model``'s summaries, asking through ``navigator`` (resolved and wired by the program);
    :class:`NavigatorConfigError` in one line when ``model`` is no LLM navigator's."""
    if not model.startswith(SUMMARY_PREFIXES) or not isinstance(navigator, OpenAICompatibleNavigator):
        raise NavigatorConfigError(f"--summaries {model}: summaries are written by an LLM navigator's model; give "
                                   f"{', '.join(prefix + 'MODEL' for prefix in SUMMARY_PREFIXES)}, or leave "
                                   "--summaries out for the extractive ones")
    return SummaryWriter(model, navigator)


def _cut(summary: str) -> str:
    return summary if len(summary) <= SUMMARY_MAX_CHARS else summary[:SUMMARY_MAX_CHARS - 1].rstrip() + "…"


def _children(node: dict[str, Any]) -> list[dict[str, Any]]:
    nodes = node.get("nodes")
    return [child for child in nodes if isinstance(child, dict)] if isinstance(nodes, list) else []


def _preorder(tree: Any) -> list[dict[str, Any]]:
    roots = tree.get("structure") if isinstance(tree, dict) else tree
    stack = [node for node in reversed(roots) if isinstance(node, dict)] if isinstance(roots, list) else []
    found: list[dict[str, Any]] = []
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(reversed(_children(node)))
    return found
