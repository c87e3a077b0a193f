"""A sheet's cells folded once for their checks and casts (`schemas.checks.plain_columns`,
one lazy query in `pipeline.intake.validate`): the same values and the same problems as the
whole folding, whether a column's cells are plain ASCII or not."""

from __future__ import annotations

import duckdb
import polars as pl
from conftest import RESULT_HEADER, write_csv
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas import checks

PLAIN = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=6)
ANY = st.one_of(
    PLAIN,
    st.sampled_from(
        ["ａ１", " a1 ", "A\u200b1", "А1", "ǅ", "ß", "过A", "\t2", "１０", "x\u00ady", "ﬁ"]
    ),
)


@settings(max_examples=80, deadline=None)
@given(
    plain=st.lists(st.one_of(st.none(), PLAIN), min_size=1, max_size=6),
    mixed=st.lists(st.one_of(st.none(), ANY), min_size=6, max_size=6),
)
def test_plain_columns_fold_as_the_whole_folding(plain, mixed):
    frame = pl.DataFrame(
        {"plain": plain + [None] * (6 - len(plain)), "mixed": mixed},
        schema={"plain": pl.String, "mixed": pl.String},
    )
    whole = frame.select(checks.normalized("plain"), checks.normalized("mixed"))
    with checks.plain_columns(frame):
        quick = frame.select(checks.normalized("plain"), checks.normalized("mixed"))
    assert quick.equals(whole)
    assert checks.normalized("plain").meta.eq(
        pl.col("plain")
        .str.normalize("NFKC")
        .str.replace_all(checks.BLANKS, "")
        .str.to_uppercase()
        .str.replace_many(list(checks.HOMOGLYPHS), list(checks.HOMOGLYPHS.values()))
    )


def _results(db_file):
    con = duckdb.connect(str(db_file), read_only=True)
    try:
        return con.execute(
            "select round, table_no, ew_team, ns_team, ew_level, ns_level from results order by all"
        ).fetchall()
    finally:
        con.close()


def test_cells_written_otherwise_store_the_same_levels(cli, event_with_results, tmp_path, db_file):
    """Lower case, `7.0`, `a+`, full-width and zero-width spellings: one sheet of plain ASCII
    cells, one with others among them, stored alike."""
    rows = [["2.0", "1", "a1", "a3", "k", "a+"], ["2", "2.00", "A5", "a7", "q", "10"]]
    plain = write_csv(tmp_path / "plain.csv", [RESULT_HEADER, *rows])
    assert cli("ingest", "--event", event_with_results, plain).code == 0
    stored = _results(db_file)
    odd = [["２", "1", "Ａ1", "a\u200b3", " k", "a+"], ["2", "2.00", "A5", "a7", "q", "１０"]]
    again = write_csv(tmp_path / "odd.csv", [RESULT_HEADER, *odd])
    run = cli("ingest", "--event", event_with_results, again)
    assert run.code == 0, run.err
    assert _results(db_file) == stored
    assert (2, 1, "A1", "A3", 13, 15) in stored and (2, 2, "A5", "A7", 12, 10) in stored


def test_plain_bad_cells_are_named_as_before(cli, event_with_results, tmp_path):
    """A sheet of plain cells with problems: each named by row and column, the seats of a
    team twice in the round included."""
    rows = [
        ["2", "1", "a1", "a3", "b", "9"],
        ["2", "2", "A5", "a1", "9", "8"],
        ["x", "3", "A7", "A9", "9", "9"],
        ["2", "4", "A11", "Z1", "9", "8"],
    ]
    path = write_csv(tmp_path / "bad.csv", [RESULT_HEADER, *rows])
    run = cli("ingest", "--event", event_with_results, path)
    assert run.code == 2
    said = run.err.splitlines()
    for row, column, words in (
        (2, "东西级数", "不是有效的级数"),
        (3, "南北队号", "出现两次"),
        (4, "轮次", "正整数"),
        (5, "南北队号", "未报名"),
    ):
        assert any(column in line and f" {row} " in line and words in line for line in said), (
            run.err
        )
