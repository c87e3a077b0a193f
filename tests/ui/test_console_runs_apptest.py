"""Issue 53: the console reads the event's state once per page run and keeps what it made
from it (a file's preview, the undo offer) for as long as that state stands — and never
shows a stale view after a change, whether the console made it or the hall did."""

from __future__ import annotations

import io
import re

from conftest import RESULT_HEADER, entries, run_page, write_csv

from pipeline.base import db, events
from pipeline.cli import main

PASSWORD = "pw"


def _event(tmp_path, teams: int = 8):
    """A suzhou-2025 event of `teams` teams with round 1 paired (A1–A2 at table 1 …)."""
    database = tmp_path / "c.duckdb"
    args = ["--db", str(database)]
    assert (
        main(["event", "create", "--id", "e", "--name", "赛", "--ruleset", "suzhou-2025", *args])
        == 0
    )
    assert (
        main(["ingest", "--event", "e", str(write_csv(tmp_path / "e.csv", entries(teams))), *args])
        == 0
    )
    assert main(["pair", "--event", "e", *args]) == 0
    return database, args


def _console(monkeypatch, database):
    monkeypatch.setenv("PAISAI_ADMIN_PASSWORD", PASSWORD)
    from dashboard import auth

    auth._failures().clear()
    at = run_page(monkeypatch, database, "admin", event="e")
    at.text_input[0].input(PASSWORD)
    at.button[0].click().run()
    assert not at.exception
    return at


def _sheet(rows: list[list[object]]) -> bytes:
    out = io.StringIO()
    for row in [RESULT_HEADER, *rows]:
        out.write(",".join(str(v) for v in row) + "\n")
    return out.getvalue().encode()


def _counts(at) -> tuple[int, int, int]:
    """The preview's (new, replaced, unchanged) for the results sheet."""
    table = next(e.proto.body for e in at.get("html") if 'data-testid="preview"' in e.proto.body)
    row = re.search(r"<tbody><tr>(.*?)</tr>", table).group(1)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
    return int(cells[-3]), int(cells[-2]), int(cells[-1])


def test_a_waiting_file_is_previewed_again_after_the_hall_changes_the_event(monkeypatch, tmp_path):
    """The preview is kept while the file waits (not read again at every redraw) — until
    the event changes: a table stored meanwhile from the command line turns the file's row
    for it from 'new' to 'replaced' at the next drawing."""
    database, args = _event(tmp_path)
    at = _console(monkeypatch, database)
    sheet = _sheet([[1, 1, "A1", "A2", "10", "8"], [1, 2, "A3", "A4", "9", "K"]])
    at.file_uploader[0].set_value(("第1轮.csv", sheet, "text/csv")).run()
    assert not at.exception
    assert _counts(at) == (2, 0, 0)
    assert any(b.label == "确认导入" for b in at.button)
    at.run()  # a redraw while the file waits: the same preview
    assert _counts(at) == (2, 0, 0)
    other = write_csv(tmp_path / "t1.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "J", "8"]])
    assert main(["ingest", "--event", "e", str(other), *args]) == 0
    at.run()
    assert not at.exception
    assert _counts(at) == (1, 1, 0)


def test_the_undo_offer_and_the_status_follow_the_console_s_own_upload(monkeypatch, tmp_path):
    """A sheet confirmed on the console: the next drawing counts its tables as reported and
    offers to undo that upload (the offer kept per state of the event is not the one from
    before); the undo brings the count back."""
    database, _ = _event(tmp_path)
    at = _console(monkeypatch, database)
    assert not any(b.label.startswith("撤销上一步") for b in at.button)
    reported = next(m for m in at.metric if m.label == "已报/应报")
    assert reported.value == "0/4"
    sheet = _sheet([[1, 1, "A1", "A2", "10", "8"], [1, 2, "A3", "A4", "9", "K"]])
    at.file_uploader[0].set_value(("第1轮.csv", sheet, "text/csv")).run()
    next(b for b in at.button if b.label == "确认导入").click().run()
    assert not at.exception
    assert next(m for m in at.metric if m.label == "已报/应报").value == "2/4"
    undo = next(b for b in at.button if b.label.startswith("撤销上一步"))
    assert "第1轮.csv" in undo.label and not undo.disabled
    undo.click().run()
    assert not at.exception
    assert next(m for m in at.metric if m.label == "已报/应报").value == "0/4"
    assert not any(b.label.startswith("撤销上一步") for b in at.button)


def test_the_qr_codes_name_the_current_round_and_are_made_only_when_shown(monkeypatch, tmp_path):
    """The self-report section counts the round's tables without signing their links; the
    links and QR codes come when the toggle is on, and a new round is counted at once."""
    from pipeline.day import selfreport

    database, args = _event(tmp_path, teams=9)  # four tables and a bye
    signed = []
    real = selfreport.links
    monkeypatch.setattr(selfreport, "links", lambda *a, **k: signed.append(a) or real(*a, **k))
    at = _console(monkeypatch, database)
    toggle = next(x for x in at.toggle if "QR" in x.label)
    assert toggle.label == "轮次 1: 4 × 2 QR" and not signed
    toggle.set_value(True).run()
    assert not at.exception and signed
    rows = [RESULT_HEADER] + [[1, t, f"A{2 * t - 1}", f"A{2 * t}", "10", "8"] for t in range(1, 5)]
    assert main(["ingest", "--event", "e", str(write_csv(tmp_path / "r1.csv", rows)), *args]) == 0
    assert main(["pair", "--event", "e", *args]) == 0
    at = _console(monkeypatch, database)
    assert next(x for x in at.toggle if "QR" in x.label).label == "轮次 2: 4 × 2 QR"


def test_the_event_picker_lists_the_events_as_the_listing_does(tmp_path):
    """The picker's light read (ids and names) keeps the listing's order: most recent first."""
    database = tmp_path / "p.duckdb"
    for event_id, date in (("a", "2025-01-02"), ("b", "2025-03-04"), ("c", None)):
        assert (
            main(
                [
                    "event",
                    "create",
                    "--id",
                    event_id,
                    "--name",
                    f"赛{event_id}",
                    "--ruleset",
                    "suzhou-2025",
                    *(["--date", date] if date else []),
                    "--db",
                    str(database),
                ]
            )
            == 0
        )
    with db.reading(database) as con:
        names = events.names(con)
        listing = events.listing(con)
    assert names.rows() == listing.select("event_id", "name").rows()
    assert names["event_id"].to_list()[:2] == ["b", "a"]


def test_a_run_with_a_chosen_file_goes_before_the_phones_batches(monkeypatch, tmp_path):
    """Issue 53: from the moment a sheet is in the file box, the console's page runs count as
    the organizer's (`db.first`: the phones' report batches wait, one under way gives way),
    from the status read at the top to the preview; without a file, and once the file is
    stored, the runs leave the batches alone."""
    from dashboard.console import registration, status

    database, _ = _event(tmp_path)
    seen: list[tuple[str, int]] = []

    def counted(name, real):
        def inner(*args, **kwargs):
            seen.append((name, db.foreground_writers(database)))
            return real(*args, **kwargs)

        return inner

    monkeypatch.setattr(status, "status_data", counted("status", status.status_data))
    monkeypatch.setattr(registration, "preview_file", counted("preview", registration.preview_file))
    at = _console(monkeypatch, database)
    assert seen and all(writers == 0 for _, writers in seen)
    seen.clear()
    sheet = _sheet([[1, 1, "A1", "A2", "10", "8"], [1, 2, "A3", "A4", "9", "K"]])
    at.file_uploader[0].set_value(("第1轮.csv", sheet, "text/csv")).run()
    assert not at.exception
    assert [name for name, _ in seen] == ["status", "preview"]
    assert all(writers >= 1 for _, writers in seen)
    assert db.foreground_writers(database) == 0  # the run over: the batches go on
    seen.clear()
    next(b for b in at.button if b.label == "确认导入").click().run()
    assert not at.exception
    assert next(m for m in at.metric if m.label == "已报/应报").value == "2/4"
    assert seen and all(writers == 0 for _, writers in seen)
    assert db.foreground_writers(database) == 0


def test_the_hall_redraws_the_console_at_most_every_ten_seconds():
    """Issue 53: a change of the hall after a quiet spell redraws the console at the next
    tick; while the phones keep reporting, a redraw waits HALL_REDRAW_SECONDS after the last
    one (a file chosen during a whole redraw waited for it)."""
    from dashboard.console.status import HALL_REDRAW_SECONDS, hall_redraw_due

    assert HALL_REDRAW_SECONDS == 10
    assert hall_redraw_due(None, 5.0)
    assert not hall_redraw_due(100.0, 101.0)
    assert not hall_redraw_due(100.0, 109.9)
    assert hall_redraw_due(100.0, 110.0)
