"""Issue 53 (upload): the console's phases with a file box are never redrawn as a whole for
the hall — their status, undo offer and waiting reports redraw themselves (fragments) — and
why that keeps a file being uploaded: Streamlit drops the upload's address from the way to
the browser when a whole run of the page starts, not when a fragment's run does."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

from dashboard.console import status


def _queued_after_a_run_starts(fragment_ids: list[str] | None) -> list[str]:
    """What is still on its way to the browser when a run starts (as AppSession clears the
    queue at SCRIPT_STARTED): a file's upload address answered just before, and a delta of
    the fragment that starts."""
    address = ForwardMsg()
    address.file_urls_response.response_id = "upload-1"
    drawn = ForwardMsg()
    drawn.delta.fragment_id = "status"
    drawn.metadata.delta_path[:] = [0, 1]
    queue = ForwardMsgQueue()
    queue.enqueue(address)
    queue.enqueue(drawn)
    queue.clear(retain_lifecycle_msgs=True, fragment_ids_this_run=fragment_ids)
    return [m.WhichOneof("type") for m in queue.flush()]


def test_a_whole_run_drops_an_upload_s_address_a_fragment_s_run_keeps_it():
    """The lost upload (no PUT ever came, the console stuck): a whole redraw started between
    the server's answer to the browser's request for the upload's address and its sending.
    A fragment's run keeps every message but its own drawing (Streamlit 1.67): if an upgrade
    changed that, the fragments would have to pause while a file is being given."""
    assert _queued_after_a_run_starts(None) == []
    assert _queued_after_a_run_starts(["status"]) == ["file_urls_response"]


@pytest.fixture
def hall(monkeypatch):
    """The console's session state, its clock and the event's version, as a fragment sees
    them (`own_run`: the fragment's own run or the page's)."""
    found = SimpleNamespace(version="v1", now=1000.0, own=False, asked=0)

    def version(event_id: str) -> str:
        found.asked += 1
        return found.version

    monkeypatch.setattr(status, "st", SimpleNamespace(session_state={}))
    monkeypatch.setattr(status, "time", SimpleNamespace(monotonic=lambda: found.now))
    monkeypatch.setattr(status, "console_version", version)
    monkeypatch.setattr(status, "own_run", lambda: found.own)
    return found


def test_a_part_follows_the_hall_at_its_own_pace(hall):
    """The page's run draws what it read; the part's own runs draw the hall's change at the
    next tick after a quiet spell, then at most every HALL_REDRAW_SECONDS, and from the cache
    (the version drawn last) in between."""
    assert status.hall_version("e", "status", "v1") == "v1"  # the page's run
    assert status.st.session_state["seen_version"] == "v1"  # what `follow` compares with
    hall.own = True
    assert status.hall_version("e", "status", "v1") == "v1"  # nothing changed
    hall.version, hall.now = "v2", 1003.0
    assert status.hall_version("e", "status", "v1") == "v2"  # after a quiet spell: at once
    hall.version, hall.now = "v3", 1006.0
    asked = hall.asked
    assert status.hall_version("e", "status", "v1") == "v2"  # too soon: the one drawn
    assert hall.asked == asked  # not even asked
    assert status.hall_version("e", "pending", "v1") == "v3"  # each part at its own pace
    hall.now = 1013.0
    assert status.hall_version("e", "status", "v1") == "v3"
    hall.own = False
    assert status.hall_version("e", "status", "v4") == "v4"  # the organizer's own run


def test_the_phases_with_a_file_box_are_never_redrawn_whole_by_the_hall(monkeypatch, tmp_path):
    """Before and the round: the page has no timer that redraws it whole (`follow`, the
    clock's `on_tick`); the pairing, officials and after phases keep it."""
    from tests.ui.test_console_runs_apptest import _console, _event

    database, _ = _event(tmp_path)
    asked: list[str] = []
    monkeypatch.setattr(status, "redraw_if_changed", lambda event_id: asked.append(event_id))
    at = _console(monkeypatch, database)
    for phase, whole in (("round", False), ("before", False), ("pairing", True),
                         ("officials", True), ("after", True)):
        asked.clear()
        at.session_state["phase"] = phase
        at.run()
        assert not at.exception
        assert bool(asked) is whole, phase
