"""A walk's one record (issue 44, point 2): what its session handed the trace, the spans and the session folder
as it ended is what ctrl+s saves and the HTML export draws — the same object, not a record built again."""

from __future__ import annotations

from explorer.ending import WalkEnd
from explorer.walks.history import WalkHistory
from explorer.walks.walk_list import Walk

from .test_walk_list import HANDBOOK, live_walk


def test_an_ended_walks_record_is_the_one_its_session_handed_its_sinks() -> None:
    walk = live_walk()
    session = walk.session
    handed = []
    session.observers.append(handed.append)
    session.run_headless()
    assert walk.history.end is WalkEnd.FINISHED
    walk.retire()
    (record,) = handed
    assert walk.finished(HANDBOOK) is record  # the session's, kept with the walk once its session is gone
    assert walk.finished(HANDBOOK) is walk.finished(HANDBOOK)


def test_a_walk_still_going_is_recorded_as_it_stands_as_cancelled() -> None:
    walked = live_walk()
    walked.session.run_headless()
    going = WalkHistory(walked.history.settings)
    for event in walked.history.events[:3]:
        going.append(event)
    walk = Walk(going)
    record = walk.finished(HANDBOOK)
    assert record.end is WalkEnd.CANCELLED and going.end is None
    assert record.events == tuple(walked.history.events[:3])
    assert walk.finished(HANDBOOK) is not record  # nothing is kept of a walk that has not ended


def test_a_saved_walk_is_recorded_from_its_history() -> None:
    walk = live_walk()
    walk.session.run_headless()
    copy = Walk(walk.history)  # made elsewhere, with no session
    assert copy.finished(HANDBOOK).events == walk.finished(HANDBOOK).events
