"""Both sides confirm (issue 22): a table's two sides each have a signed link; the same
result from both is stored at once (and audited with both submissions), a different one
waits for the organizer beside the other."""

from __future__ import annotations

import duckdb
import pytest

from pipeline.base.errors import UsageError
from pipeline.day import selfreport


def _links(cli, db_file, event):
    assert cli("pair", "--event", event).code == 0
    table = selfreport.links(db_file, event, 1, "http://hall")
    row = table.row(0, named=True)  # table 1: A1 (EW) against A2 (NS)
    return ({side: row[f"{side}_url"].rsplit("sig=", 1)[1] for side in ("ew", "ns")},
            {side: row[f"{side}_code"] for side in ("ew", "ns")})


def test_both_sides_alike_is_stored_at_once_and_audited(cli, event16, db_file):
    sig, code = _links(cli, db_file, event16)
    assert selfreport.submit(db_file, "e", 1, 1, sig["ew"], "K", "9", "ew", code["ew"]) == "waiting"
    assert selfreport.submit(db_file, "e", 1, 1, sig["ns"], "K", "9", "ns", code["ns"]) == "stored"
    con = duckdb.connect(str(db_file), read_only=True)
    assert con.execute("select ew_level, ns_level from results").fetchall() == [(13, 9)]
    audit = con.execute("select source_file, reason, new_ew_level from result_audit").fetchall()
    con.close()
    assert len(audit) == 1 and audit[0][1] == "self-report both sides" and audit[0][2] == 13
    assert audit[0][0].count("#") == 2  # both submissions named
    assert selfreport.pending(db_file, "e").is_empty()
    assert cli("check").code == 0


def test_sides_that_disagree_wait_for_the_organizer(cli, event16, db_file):
    sig, code = _links(cli, db_file, event16)
    selfreport.submit(db_file, "e", 1, 1, sig["ew"], "K", "9", "ew", code["ew"])
    assert selfreport.submit(db_file, "e", 1, 1, sig["ns"], "K", "10", "ns", code["ns"]) == "disagree"
    waiting = selfreport.pending(db_file, "e")
    assert waiting.select("side", "ns_level").rows() == [("ew", "9"), ("ns", "10")]
    selfreport.decide(db_file, "e", waiting["report_id"][1], accept=True)  # NS was right
    assert selfreport.pending(db_file, "e").is_empty()  # the other side's report settled
    con = duckdb.connect(str(db_file), read_only=True)
    assert con.execute("select ns_level from results").fetchall() == [(10,)]
    con.close()


def test_a_side_link_is_that_side_only_and_organizer_mode_waits(cli, tmp_path, db_file):
    ruleset = tmp_path / "r.toml"
    ruleset.write_text('name = "r"\nself_report = "organizer"\n', encoding="utf-8")
    assert cli("event", "create", "--id", "e", "--name", "赛", "--ruleset", ruleset).code == 0
    from conftest import entries, write_csv

    assert cli("ingest", "--event", "e", write_csv(tmp_path / "e.csv", entries(4))).code == 0
    sig, code = _links(cli, db_file, "e")
    with pytest.raises(UsageError, match="链接无效"):
        selfreport.submit(db_file, "e", 1, 1, sig["ew"], "K", "9", "ns", code["ew"])  # EW's link as NS
    selfreport.submit(db_file, "e", 1, 1, sig["ew"], "K", "9", "ew", code["ew"])
    assert selfreport.submit(db_file, "e", 1, 1, sig["ns"], "K", "9", "ns", code["ns"]) == "waiting"
    assert selfreport.pending(db_file, "e").height == 2  # the organizer approves
