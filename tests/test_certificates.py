"""Award certificates (issue 21): `paisai awards --certificates FILE.pdf` writes one A4 page per
prize with the Chinese text embedded; a page is rendered to PNG to see the glyphs drawn."""

from __future__ import annotations

import io
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from conftest import RESULT_HEADER, Run, entries, read_csv_output, run_page, write_csv

from pipeline.cli import main
from tests.ui.conftest import guide_image


@pytest.fixture(scope="module")
def finished_file(tmp_path_factory) -> Path:
    """Four teams, three rounds (a round robin): the lower number always wins, K to 5. By hand:
    A1 3 wins, A2 2, A3 1, A4 0; suzhou-2025's prizes 冠军 1, 亚军 1, 季军 2. Played once
    through the real `main`, copied for each test (`finished`)."""
    folder = tmp_path_factory.mktemp("finished")
    database = folder / "t.duckdb"

    def cli(*args) -> Run:
        with redirect_stdout(io.StringIO()) as said, redirect_stderr(io.StringIO()) as told:
            code = main([*map(str, args), "--db", str(database)])
        return Run(code, said.getvalue(), told.getvalue())

    assert cli("event", "create", "--id", "c", "--name", "证书测试赛", "--ruleset",
               "suzhou-2025", "--date", "2026-05-03").code == 0
    assert cli("ingest", "--event", "c", write_csv(folder / "e.csv", entries(4))).code == 0
    for round_no in (1, 2, 3):
        pairs = read_csv_output(cli("pair", "--event", "c", "--format", "csv").out)
        rows = [RESULT_HEADER]
        for p in pairs:
            ew, ns = p["ew_team"], p["ns_team"]
            ew_wins = int(ew[1:]) < int(ns[1:])
            rows.append([round_no, p["table"], ew, ns, "K" if ew_wins else "5",
                         "5" if ew_wins else "K"])
        assert cli("ingest", "--event", "c",
                   write_csv(folder / f"r{round_no}.csv", rows)).code == 0
    return database


@pytest.fixture
def finished(finished_file, db_file):
    """The finished event in this test's own database file (a copy)."""
    assert not db_file.exists()
    shutil.copyfile(finished_file, db_file)
    shutil.copyfile(finished_file.with_suffix(".log"), db_file.with_suffix(".log"))  # paisai log
    return "c"


def _pdf_pages(path: Path) -> list:
    import pypdfium2 as pdfium

    return list(pdfium.PdfDocument(str(path)))


def test_one_page_per_prize_with_chinese_embedded(finished, paisai, tmp_path):
    out = tmp_path / "证书.pdf"
    assert paisai("awards", "--event", finished).err == ""  # final: no note
    run = paisai("awards", "--event", finished, "--certificates", out,
                 "--organizer", "某某市掼蛋协会")
    assert run.code == 0, run.err
    assert "4 页" in run.out
    pages = _pdf_pages(out)
    assert len(pages) == 4
    expected = [("冠军", "A1", "队伍1", "张1、李1", 1), ("亚军", "A2", "队伍2", "张2、李2", 2),
                ("季军", "A3", "队伍3", "张3、李3", 3), ("季军", "A4", "队伍4", "张4、李4", 4)]
    for page, (prize, team, name, players, rank) in zip(pages, expected, strict=True):
        width, height = page.get_size()
        assert (round(width), round(height)) == (842, 595)  # A4 landscape, in points
        text = page.get_textpage().get_text_range()
        assert "荣 誉 证 书" in text and "证书测试赛" in text
        assert prize in text and f"{name}（{team}）" in text and players in text
        # a prize two teams share (季军) names no rank: A4 is not 第 4 名 of a third prize
        assert (f"第 {rank} 名" in text) == (prize != "季军")
        assert "特发此证" in text and "2026 年 5 月 3 日" in text
        assert "某某市掼蛋协会" in text
    raw = out.read_bytes()
    assert b"/FontFile" in raw  # the font is in the file, not borrowed from the reader
    assert not list(tmp_path.glob(".*.part"))  # no scratch file left behind
    probe = tmp_path / "probe"
    probe.write_bytes(b"")
    assert out.stat().st_mode & 0o777 == probe.stat().st_mode & 0o777  # the mode of any file


def test_a_page_renders_its_glyphs(finished, paisai, tmp_path):
    out = tmp_path / "c.pdf"
    assert paisai("awards", "--event", finished, "--certificates", out,
                  "--organizer", "某某市掼蛋协会").code == 0
    image = _pdf_pages(out)[0].render(scale=150 / 72).to_pil().convert("L")
    guide_image(lambda path: image.save(path), "certificate")
    width, height = image.size
    # the title "荣 誉 证 书" sits 32–54 mm from the top (of 210), centred, inside the frame
    # lines (10 and 15 mm): ink there, not an empty box
    title = image.crop((width // 4, height * 28 // 210, 3 * width // 4, height * 58 // 210))
    dark = sum(title.histogram()[:200])
    assert dark > 0.02 * title.width * title.height
    # and four characters side by side: four separate runs of ink across the title
    columns = [any(title.getpixel((x, y)) < 200 for y in range(title.height))
               for x in range(title.width)]
    runs = sum(1 for a, b in zip([False, *columns], columns, strict=False) if b and not a)
    assert runs >= 4


def test_not_before_the_last_round_unless_forced(cli, event16, paisai, tmp_path):
    assert cli("pair", "--event", event16).code == 0
    listed = paisai("awards", "--event", event16)  # the list as it stands, with a note
    assert listed.code == 0 and "比赛还没有结束（计划 3 轮，还没有成绩）" in listed.err
    out = tmp_path / "early.pdf"
    run = paisai("awards", "--event", event16, "--certificates", out)
    assert run.code == 2 and "比赛还没有结束" in run.err and "--force" in run.err
    assert not out.exists()
    run = paisai("awards", "--event", event16, "--certificates", out, "--force")
    assert run.code == 0, run.err
    assert len(_pdf_pages(out)) == 16  # 1 + 1 + 2 + 12 prizes, all teams still level


def test_clear_errors_and_nothing_written(finished, paisai, tmp_path):
    out = tmp_path / "c.pdf"
    run = paisai("awards", "--event", finished, "--certificates", out,
                 env={"PAISAI_CJK_FONT": str(tmp_path / "none.ttf")})
    assert run.code == 2 and "字体文件不存在" in run.err and "Traceback" not in run.err
    not_a_font = write_csv(tmp_path / "font.ttc", [["not a font"]])
    run = paisai("awards", "--event", finished, "--certificates", out,
                 env={"PAISAI_CJK_FONT": str(not_a_font)})
    assert run.code == 2 and "读不出字体" in run.err and "Traceback" not in run.err
    run = paisai("awards", "--event", finished, "--certificates", tmp_path / "no" / "c.pdf")
    assert run.code == 2 and "文件夹不存在" in run.err
    run = paisai("awards", "--event", finished, "--certificates", tmp_path)
    assert run.code == 2 and "--certificates 是一个文件夹" in run.err
    assert not out.exists()


def test_a_tractor_event_waits_for_its_final(cli, tmp_path, paisai):
    assert cli("event", "create", "--id", "tr", "--name", "拖拉机", "--ruleset",
               "hengquan-2025-tractor").code == 0
    assert cli("ingest", "--event", "tr", write_csv(tmp_path / "e.csv", entries(8, "T"))).code == 0
    run = paisai("awards", "--event", "tr", "--certificates", tmp_path / "t.pdf")
    assert run.code == 2 and "决赛还没有结果" in run.err


def _console(monkeypatch, database: Path, event: str):
    monkeypatch.setenv("PAISAI_ADMIN_PASSWORD", "pw")
    at = run_page(monkeypatch, database, "admin", event=event)
    at.text_input[0].input("pw")
    at.button[0].click().run()
    at.segmented_control[0].set_value("after").run()  # the console's 赛后 phase
    assert not at.exception
    return at


def test_the_console_makes_them_after_the_last_round(finished, db_file, monkeypatch):
    at = _console(monkeypatch, db_file, finished)
    at.text_input(key="certificates-organizer").input("某某市掼蛋协会")
    at.button(key="certificates").click().run()
    assert not at.exception and not at.error
    labels = [b.proto.label for b in at.get("download_button")]
    assert "获奖证书 PDF（4 页）" in labels


def test_the_console_says_why_they_wait(cli, event16, db_file, monkeypatch):
    assert cli("pair", "--event", event16).code == 0
    at = _console(monkeypatch, db_file, event16)
    assert not [b for b in at.button if b.key == "certificates"]
    assert any("获奖证书：比赛还没有结束" in c.value for c in at.caption)



def test_each_player_s_member_id_is_printed_never_an_internal_one(finished, cli, paisai,
                                                                  tmp_path):
    """The certificate prints the players' member ids (会员号) where the registration gives
    them, so the association can file it; never the ids paisai makes from the names (issue
    51: "编号 P1ca097b13e…" meant nothing to anyone)."""
    from pipeline.history import identity

    out = tmp_path / "ids.pdf"
    assert paisai("awards", "--event", finished, "--certificates", out).code == 0
    text = _pdf_pages(out)[0].get_textpage().get_text_range()
    assert "编号" not in text and identity.association_id("张1", None) not in text
    assert "张1、李1" in text  # the players themselves are there
    assert cli("event", "create", "--id", "m", "--name", "会员赛", "--ruleset",
               "suzhou-2025").code == 0
    assert cli("ingest", "--event", "m", write_csv(tmp_path / "m.csv", [
        ["队号", "队名", "队员1", "队员2", "会员号1", "会员号2"],
        ["A1", "一队", "赵甲", "钱乙", "js-0001", "JS-0002"],
        ["A2", "二队", "孙丙", "李丁", "JS-0003", "JS-0004"]])).code == 0
    assert cli("ingest", "--event", "m", write_csv(tmp_path / "m-r.csv", [
        RESULT_HEADER, [1, 1, "A1", "A2", "A", "5"]])).code == 0
    run = paisai("awards", "--event", "m", "--certificates", out, "--force")
    assert run.code == 0, run.err
    text = _pdf_pages(out)[0].get_textpage().get_text_range()
    assert "赵甲、钱乙" in text and "编号 JS-0001、JS-0002" in text


def test_fonts_are_found_on_windows_and_macos_and_the_error_names_the_remedy(
        tmp_path, monkeypatch):
    """Issue 39: a laptop without fontconfig finds its system's Chinese font (Windows'
    fonts folder, macOS's system fonts); without one, the error says that platform's fix."""
    import sys

    from pipeline.base.errors import UsageError
    from pipeline.publishing.export import certificates

    monkeypatch.delenv("PAISAI_CJK_FONT", raising=False)
    monkeypatch.setattr(certificates, "_fc_match", lambda: iter(()))
    fonts = tmp_path / "Windows" / "Fonts"
    fonts.mkdir(parents=True)
    (fonts / "simhei.ttf").write_bytes(b"font")
    monkeypatch.setenv("WINDIR", str(tmp_path / "Windows"))
    assert certificates.find_font().path == fonts / "simhei.ttf"
    (fonts / "simhei.ttf").unlink()
    monkeypatch.setattr(certificates, "MACOS_FILES", ())
    monkeypatch.setattr(certificates, "KNOWN_FILES", ())
    for platform, words in (("win32", "微软雅黑"), ("darwin", "PingFang"),
                            ("linux", "fonts-noto-cjk")):
        monkeypatch.setattr(sys, "platform", platform)
        try:
            certificates.find_font()
        except UsageError as exc:
            assert words in str(exc)
        else:
            raise AssertionError("no font, no error")
