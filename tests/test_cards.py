"""Table cards (issue 51): the half that stands on the table names both teams — the slips
below the cut line, which also name them, are cut off and handed to each side."""

from __future__ import annotations

from conftest import read_csv_output

MM = 72 / 25.4  # PDF points per millimetre
CUT = 80  # the cut line, mm from the top (cards.py)


def test_the_standing_half_names_both_teams(cli, event16, tmp_path):
    import pypdfium2 as pdfium

    pairs = read_csv_output(cli("pair", "--event", event16, "--format", "csv").out)
    out = tmp_path / "cards.pdf"
    assert cli("export", "cards", "--event", event16, "--round", "1", "--out", str(out),
               "--base-url", "http://192.168.1.5:8501").code == 0
    pages = list(pdfium.PdfDocument(str(out)))
    assert len(pages) == len(pairs) == 8
    for page, pair in zip(pages, sorted(pairs, key=lambda p: int(p["table"])), strict=True):
        width, height = page.get_size()
        standing = page.get_textpage().get_text_bounded(0, height - CUT * MM, width, height)
        for side in ("ew", "ns"):  # entries(16): team Ai is named 队伍i
            team = pair[f"{side}_team"]
            assert f"{team} 队伍{team[1:]}" in standing, (pair["table"], standing)
        assert f"第 {pair['table']} 桌" in standing
