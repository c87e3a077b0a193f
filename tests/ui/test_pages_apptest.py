"""Every page through Streamlit's AppTest: no exception, the right elements."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.demo import build_demo
from pipeline.serve import app_path


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory):
    database = tmp_path_factory.mktemp("apptest") / "demo.duckdb"
    build_demo(database)
    return database


def _run(monkeypatch, database, page: str, **params) -> AppTest:
    monkeypatch.setenv("PAISAI_DB", str(database))
    at = AppTest.from_file(str(app_path()), default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(str(app_path().parent / "views" / f"{page}.py"))
    return at.run()


def test_live_page(monkeypatch, demo_db):
    at = _run(monkeypatch, demo_db, "live", event="demo")
    assert not at.exception
    assert at.title[0].value == "演示赛：关务掼蛋春茗会"
    assert "已报 8/8 桌" in at.markdown[0].value


def test_live_page_in_english(monkeypatch, demo_db):
    at = _run(monkeypatch, demo_db, "live", event="demo", lang="en")
    assert not at.exception
    assert "8/8 tables reported" in at.markdown[0].value


def test_pairings_page(monkeypatch, demo_db):
    at = _run(monkeypatch, demo_db, "pairings", event="demo")
    assert not at.exception
    assert "3" in at.title[0].value
    at.text_input[0].input("A1").run()
    assert not at.exception


def test_empty_database(monkeypatch, tmp_path):
    at = _run(monkeypatch, tmp_path / "empty.duckdb", "live")
    assert not at.exception
    assert "还没有赛事" in at.info[0].value
