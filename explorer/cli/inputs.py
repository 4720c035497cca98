"""The files a command reads: a corpus (with a progress line on stderr for a big one) and a trace (with the
corpus it was made on)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..corpora import Corpus, CorpusError, load_corpus
from ..corpora.map_variant import with_map
from ..reading import read_head
from ..safe_text import one_line
from ..trace import Trace, TraceError, TraceHeader, read_trace, read_trace_header
from ..walks.saved import SavedWalk, TraceFile
from .options import PROG, fail, is_there

if TYPE_CHECKING:
    from ..navigators.summary_writer import SummaryWriter
    from ..walks.telemetry.span_walks import SpanWalkPlace


def corpus_at(path: str | Path, *, show_progress: bool = False, pdf: str | None = None,
              summaries: SummaryWriter | None = None, map_file: str | None = None) -> Corpus:
    """Load a corpus (one line and exit 2 when it cannot be); with ``show_progress``, say how far on stderr; with
    ``pdf``, a PageIndex tree gets the text of its pages from that PDF; with ``summaries``, a PDF's summaries are
    written by that writer's model, and what that took said on stderr (``--summaries``; the writer is closed after);
    with ``map_file``
    (``--map``), the map variant there applied to a copy (one line and exit 2 for a bad one, naming the file, line
    and node id)."""
    reporter = LoadProgress(path) if show_progress and sys.stderr.isatty() else None
    try:
        corpus = load_corpus(path, progress=reporter, pdf=pdf, summaries=summaries)
        if reporter is not None:
            reporter.clear()
        for line in summaries_said(summaries):
            say_on_stderr(line)
        return corpus if map_file is None else with_map(corpus, map_file)
    except CorpusError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        if reporter is not None:
            reporter.clear()
        print(f"{PROG}: loading {one_line(str(path))} interrupted", file=sys.stderr)
        raise
    finally:
        if reporter is not None:
            reporter.clear()
        if summaries is not None:  # written: its navigator's client is done
            summaries.close()


def summaries_said(writer: SummaryWriter | None) -> list[str]:
    """What writing a load's summaries took, in lines: the requests (cached, new, failed), then each failed node."""
    if writer is None:
        return []
    return [line for tally in writer.tallies for line in (tally.line(), *tally.failures())]


class LoadProgress:
    """One line on stderr, redrawn in place: what is being read, and how far (a big corpus takes seconds)."""

    def __init__(self, path: str | Path, stream: Any = None) -> None:
        self.name = one_line(Path(path).name)
        self.stream = stream or sys.stderr
        self.drawn = False
        self.last = 0.0

    def __call__(self, stage: str, done: int, total: int | None) -> None:
        import time

        now = time.monotonic()
        if now - self.last < 0.1 and (total is None or done < total):
            return
        self.last = now
        how_far = f"{done * 100 // total}%" if total else f"{done:,}"
        self.stream.write(f"\r\x1b[Kloading {self.name}: {stage} {how_far} (Ctrl+C stops)")
        self.stream.flush()
        self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False


def trace_corpus(trace_path: Path, trace: Trace, override: str | None) -> Corpus:
    """The corpus a trace was made on: as recorded (relative to here, then to the trace), or ``--corpus``."""
    found = trace_corpus_path(trace_path, trace.header, override)
    corpus = corpus_at(found)
    problem = other_version(trace_path, trace.header, found, corpus)
    if problem is not None:
        fail(problem)
    return recorded_map(trace_path, trace.header, corpus)


def trace_corpus_path(trace_path: Path, header: TraceHeader, override: str | None) -> Path:
    """Where the corpus a trace was made on is: as recorded (relative to here, then to the trace), or ``--corpus``
    (one line and exit 2 when it is not there)."""
    if override:
        candidates = [Path(override)]
    else:
        recorded = Path(header.corpus_path)
        candidates = [recorded] if recorded.is_absolute() else [recorded, trace_path.parent / recorded]
    # --corpus goes straight to the loader, whose refusal (no such file, a name too long...) says what is wrong.
    found = Path(override) if override else next((c for c in candidates if is_there(c)), None)
    if found is None:
        fail(f"{trace_path}: the trace's corpus {header.corpus_path} is not here; pass --corpus PATH")
    return found


def other_version(trace_path: Path, header: TraceHeader, found: Path, corpus: Corpus) -> str | None:
    """The line on a corpus loaded for a trace that is not the one it was made on (``None``: it is). A PDF's hash
    covers the summaries a model wrote (``--summaries``), so for a PDF the line tells the summaries from the file:
    the trace made on its extractive summaries, or the corpus opened on them."""
    if corpus.sha256 == header.corpus_sha256:
        return None
    hashes = f"(sha256 {header.corpus_sha256[:12]}…, now {corpus.sha256[:12]}…)"
    if corpus.format == "pdf":
        from ..walks.evaluation.kept_run import file_sha256

        try:
            plain: str | None = file_sha256(found)  # the PDF's bytes alone: the hash of its extractive summaries
        except OSError:
            plain = None
        if header.corpus_sha256 == plain:
            return (f"{trace_path}: the trace was made on {found} with its extractive summaries, and it is opened with "
                    "a model's (--summaries); leave --summaries out")
        if corpus.sha256 == plain:
            return (f"{trace_path}: the trace was made on a different version of {found}, or on summaries a model "
                    f"wrote {hashes}; replay it on the corpus it was made on, or open it with the --summaries it was "
                    "walked with (reasoning-explorer TRACE --summaries MODEL)")
        return (f"{trace_path}: the trace was made on a different version of {found} or on other summaries "
                f"{hashes}; open it with the PDF and the --summaries it was walked with")
    return (f"{trace_path}: the trace was made on a different version of {found} {hashes}; replay it on the corpus "
            "it was made on")



def recorded_map(trace_path: Path, header: TraceHeader, corpus: Corpus) -> Corpus:
    """``corpus`` with the map variant the walk was made with (its header's ``map``; a relative path as recorded,
    then beside the trace, as the corpus's), when that file is still there with the same bytes; else the corpus as
    its file holds it, said in one line on stderr (the walk's decisions are its own either way: only the titles and
    summaries shown, and a navigator asked again, differ)."""
    ref = header.map
    if ref is None:
        return corpus
    mapped: Corpus | None = None
    recorded = Path(ref.path)  # found as the corpus is: as recorded (relative to here), then beside the trace
    beside = trace_path.parent / recorded
    where = beside if not recorded.is_absolute() and not is_there(recorded) and is_there(beside) else recorded
    try:
        mapped = with_map(corpus, where)
    except CorpusError as exc:
        why = str(exc)
    else:
        why = "" if mapped.map is not None and mapped.map.sha256 == ref.sha256 else f"{ref.path}: changed since"
    if mapped is None or why:
        print(one_line(f"{PROG}: {trace_path}: walked with the map variant {ref.path}, which cannot be used now "
                       f"({why}); shown on the corpus as its file holds it"), file=sys.stderr)
        return corpus
    return mapped


def open_trace(path: str) -> Trace:
    try:
        return read_trace(path)
    except TraceError as exc:
        fail(str(exc))


def looks_like_spans(path: str | Path) -> bool:
    """Whether ``path`` holds OTLP JSON (its first bytes hold ``"resourceSpans"``) rather than a trace: read here,
    so that opening a trace never loads OpenTelemetry. Only a regular file is read (a FIFO would block the open):
    anything else is no span file, and the trace reader says what it is."""
    try:
        head = read_head(path, 4096)
    except OSError:
        return False
    return b'"resourceSpans"' in head


def walk_and_corpus(path: str, override: str | None = None) -> tuple[Trace, Corpus]:
    """The walk a file holds and the corpus it was made on: a trace, or an OTLP JSON file of walk spans (``FILE``
    for its first walk, ``FILE#N`` for its Nth), rebuilt on its corpus (``--corpus`` to point elsewhere). What a
    span file lacks is said on stderr, one line each."""
    from ..walks.telemetry.span_walks import (  # OpenTelemetry: only for spans
        SpanError,
        index_span_walks,
        read_span_walk,
        rebuild,
    )

    file, number = path, 1
    base, hash_mark, tail = path.rpartition("#")
    if hash_mark and not Path(path).exists() and Path(base).exists():
        if not (tail.isascii() and tail.isdigit() and len(tail) <= 9):  # #-1, #abc: the file is there, #N is not
            fail(f"{one_line(path)}: #{one_line(tail)} is not a walk's number; name one as {one_line(base)}#1, "
                 f"{one_line(base)}#2, ...")
        file, number = base, int(tail)
    if not looks_like_spans(file):
        if number != 1:  # only a span file holds several walks
            fail(f"{one_line(file)} is a trace: it holds one walk; name it as {one_line(file)} (FILE#N names a walk "
                 "of a span file)")
        trace = open_trace(file)
        return trace, trace_corpus(Path(file), trace, override)
    try:
        walks = index_span_walks(file)  # where each walk is: only the one named is read whole
        if not 1 <= number <= len(walks):
            fail(f"{file} holds {len(walks)} walk{'s' if len(walks) != 1 else ''}; name one as {file}#1 to "
                 f"{file}#{len(walks)}")
        walk = read_span_walk(file, walks[number - 1])
    except SpanError as exc:
        fail(str(exc))
    if len(walks) > 1 and number == 1 and path == file:
        print(f"{PROG}: {one_line(file)} holds {len(walks)} walks; this is the first ({one_line(file)}#2 names the "
              "next)", file=sys.stderr)
    for note in walk.notes:
        print(f"{PROG}: {one_line(file)}: {note}", file=sys.stderr)
    stand_in = Trace(walk.header, (), walk.end, walk.error, path=Path(file))
    corpus = trace_corpus(Path(file), stand_in, override)
    return rebuild(walk, corpus, file), corpus


def is_walks_folder(path: str | Path) -> bool:
    """Whether ``path`` is a folder of saved walks (traces or span files, ``*.jsonl``) rather than a Markdown
    corpus: it holds ``.jsonl`` files and no ``.md`` file."""
    folder = Path(path)
    try:
        if not folder.is_dir():
            return False
        entries = list(os.scandir(folder))
    except OSError:
        return False
    names = [entry.name for entry in entries if _is_file(entry)]
    return any(n.endswith(".jsonl") for n in names) and not any(n.endswith((".md", ".markdown")) for n in names)


def _is_file(entry: os.DirEntry[str]) -> bool:
    """Whether ``entry`` is a file (a link to one included); one that cannot be looked at (a symlink loop, no
    permission) is not, and leaves the rest of its folder as it is."""
    try:
        return entry.is_file()
    except OSError:
        return False


@dataclass(frozen=True)
class WalkListing:
    """The walks a folder of saved walks, a trace or a span file holds, listed from their headers (none read whole),
    before their corpus is loaded; and the files left out, not a walk."""

    path: Path
    traces: list[tuple[TraceFile, float]]
    spans: list[tuple[Path, SpanWalkPlace]]
    unread: list[str]

    @property
    def newest(self) -> TraceHeader:
        """The newest walk's header: its corpus is the one the walks open on."""
        headers = [(t.header, m) for t, m in self.traces] + [(p.header, 0.0) for _, p in self.spans]
        return max(headers, key=lambda pair: (pair[0].created, pair[1]))[0]


@dataclass(frozen=True)
class CorpusLater:
    """A corpus loaded once the explorer is open, on its loading screen (a PDF): its path, and the one line on why
    the corpus loaded does not fit what opens on it (``None``: it fits), found on the load's thread."""

    path: Path
    check: Callable[[Corpus], str | None]


def list_walks(path: str) -> WalkListing:
    """The walks ``path`` holds, listed from their headers; a path with none is one line and exit 2."""
    from ..walks.telemetry.span_walks import SpanError, index_span_walks  # OpenTelemetry

    found: list[tuple[TraceFile, float]] = []
    spans: list[tuple[Path, SpanWalkPlace]] = []
    unread: list[str] = []
    files = sorted(Path(path).glob("*.jsonl")) if Path(path).is_dir() else [Path(path)]
    for file in files:
        try:
            mtime = file.stat().st_mtime
            if looks_like_spans(file):
                spans.extend((file, place) for place in index_span_walks(file))
            else:
                found.append((TraceFile(file, read_trace_header(file)), mtime))
        except (TraceError, SpanError) as exc:
            unread.append(str(exc))
        except OSError as exc:  # a symlink loop, no permission: that file, not the folder
            unread.append(f"{file}: cannot read it ({exc.strerror or type(exc).__name__})")
    if not found and not spans:
        fail(unread[0] if len(unread) == 1 else f"{path}: no walk to open (no trace or span file could be read"
             + (f"; the first: {unread[0]}" if unread else "") + ")")
    return WalkListing(Path(path), found, spans, unread)


def all_walks(path: str, override: str | None = None, *, later: Callable[[Path], bool] | None = None,
              summaries: Callable[[Path], SummaryWriter | None] = lambda found: None,
              ) -> tuple[list[SavedWalk], Corpus | CorpusLater]:
    """Every walk a folder of saved walks or a span file holds, newest first, on the corpus of the newest (or
    ``--corpus``), listed from their headers: each is read whole when it is first shown (:mod:`explorer.walks.saved`).
    A file whose header cannot be read, or a walk made on another corpus, is left out, and said in one line on stderr
    for each kind (how many, and the first); a folder with no walk to open is one line and exit 2, and so is a lone
    walk that cannot be read whole (it is read here).

    ``later``: whether a corpus at that path loads on the explorer's loading screen (a PDF); it then does, and is
    given as a :class:`CorpusLater` that checks it is the version the walks were made on (unless span walks are
    among them: they are rebuilt on their corpus, which is loaded here, with the writer of ``summaries`` for that
    corpus, if any: ``--summaries``, as the walks were made)."""
    listing = list_walks(path)
    newest = listing.newest
    found = trace_corpus_path(Path(path), newest, override)
    if later is not None and not listing.spans and later(found):
        return opened_walks(listing, found, None), CorpusLater(found, partial(other_version, Path(path), newest, found))
    corpus = corpus_at(found, summaries=summaries(found))
    problem = other_version(Path(path), newest, found, corpus)
    if problem is not None:
        fail(problem)
    corpus = recorded_map(Path(path), newest, corpus)  # the newest walk's map: the next walk goes on with it
    return opened_walks(listing, found, corpus), corpus


def opened_walks(listing: WalkListing, where: Path, corpus: Corpus | None) -> list[SavedWalk]:
    """The listed walks made on the newest one's corpus (at ``where``), newest first (a lone one read whole), the
    rest said on stderr; ``corpus``: what span walks are rebuilt on (``None`` only for a listing without them)."""
    from ..walks.telemetry.span_walks import SpanError, SpanFileWalk

    sha256 = listing.newest.corpus_sha256
    walks: list[tuple[SavedWalk, float]] = [(t, m) for t, m in listing.traces if t.header.corpus_sha256 == sha256]
    others = len(listing.traces) - len(walks)
    for file, place in listing.spans:
        if place.header.corpus_sha256 == sha256 and corpus is not None:
            walks.append((SpanFileWalk(file, place, corpus), 0.0))
        else:
            others += 1
    walks.sort(key=lambda pair: (pair[0].header.created, pair[1], str(pair[0].path)), reverse=True)
    unread = listing.unread
    if unread:
        say_on_stderr(f"{len(unread)} file{'s' if len(unread) != 1 else ''} left out, not a walk: {unread[0]}")
    if others:
        say_on_stderr(f"{others} walk{'s' if others != 1 else ''} left out, made on another corpus (or another "
                      f"version of {where}); open them with --corpus")
    if len(walks) == 1:  # one walk to open: read whole now, so that a damaged one is one line before the screen
        try:
            return [walks[0][0].read()]
        except (TraceError, SpanError) as exc:
            fail(str(exc))
    return [w for w, _ in walks]


def say_on_stderr(message: str) -> None:
    print(f"{PROG}: {one_line(message)}", file=sys.stderr)
