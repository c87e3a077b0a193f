"""What every page shares: the database path, the selected event, language, projector mode."""

from __future__ import annotations

import html
import json
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import streamlit as st

from dashboard.i18n import column, t
from pipeline.base import db
from pipeline.base.levels import format_level
from pipeline.day import queries
from pipeline.tractor.stages import DECISIONS

PROJECTOR_CSS = """
<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stHeader"], [data-testid="stToolbar"], [data-testid="stDecoration"],
[data-testid="stStatusWidget"], #MainMenu, footer, .not-projector { display: none !important; }
.block-container { padding-top: .6rem; padding-bottom: 0; max-width: 100% !important; }
table.paisai td, table.paisai th { font-size: 28px !important; padding: 1px 14px !important;
  line-height: 1.25; }
h1 { font-size: 38px !important; padding: 0 !important; }
.progress { font-size: 28px !important; margin: 0 0 .1rem 0 !important; }
.feed { font-size: 28px !important; margin: 0 0 .2rem 0 !important; line-height: 1.2;
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
</style>
"""

# Tables never break a name one character per line: a cell keeps its line and a table wider
# than the screen scrolls sideways. On a phone the columns beyond the essential ones are
# left out (class "opt"), and a line says where to see them.
TABLE_CSS = """
<style>
.paisai-wrap { overflow-x: auto; max-width: 100%; -webkit-overflow-scrolling: touch; }
table.paisai { border-collapse: collapse; width: 100%; }
table.paisai th { background: #1f3b63; color: #fff; text-align: center; }
table.paisai td, table.paisai th { border-bottom: 1px solid #ccd; padding: 4px 10px;
  font-size: 18px; white-space: nowrap; }
table.paisai td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.paisai[data-testid=in-play] td { text-align: center; }
table.paisai[data-testid=problems] td:first-child,
table.paisai[data-testid=problems] td:last-child { white-space: normal; overflow-wrap: anywhere; }
table.paisai[data-testid=problems] td:last-child { min-width: 16em; }
table.paisai tr:nth-child(even) td { background: #f3f6fb; }
.progress { font-size: 18px; margin: .2rem 0 .6rem 0; }
.feed { color: #445; font-size: 16px; }
.phone-only { display: none; color: #667; font-size: 13px; }
@media (max-width: 640px) {
  table.paisai td, table.paisai th { font-size: 15px; padding: 4px 5px; }
  table.paisai .opt { display: none; }
  .phone-only { display: block; }
  .block-container { padding-left: .6rem !important; padding-right: .6rem !important; }
  h1 { font-size: 1.45rem !important; }
  h2 { font-size: 1.2rem !important; }
}
</style>
"""


def event_version(event_id: str) -> str:
    """A value that changes whenever anything a public page shows of the event changes (one
    small query: pages redraw from their cache until it changes)."""
    with db.reading(database()) as con:
        return queries.event_version(con, event_id)


def database() -> Path:
    return db.db_path()


def lang() -> str:
    return "en" if st.query_params.get("lang") == "en" else "zh"


def switch_language(place=st) -> None:
    """The other language a click away (the login and the event stay: only the address's
    `lang` changes), as a button in `place` (the sidebar, or the page itself where the
    sidebar is hidden: /clock)."""
    if place.button("English" if lang() == "zh" else "中文", key="lang-switch"):
        if lang() == "zh":
            st.query_params["lang"] = "en"
        else:
            del st.query_params["lang"]
        st.rerun()


def projector() -> bool:
    return st.query_params.get("projector") == "1"


def now() -> float:
    """The time the rotation reads (one place, so that a test can set it)."""
    return time.time()


def hall_events(known: list[str]) -> list[str]:
    """`?event=ID1,ID2`: the events sharing one hall's projector (known ones, in order)."""
    wanted = (st.query_params.get("event") or "").split(",")
    return [e for e in wanted if e in known]


def hall_slot() -> tuple[str, str] | None:
    """With two events in one hall (`?event=ID1,ID2&rotate=1`), the (event, page) on show
    now: each Swiss event's ranking and pairings, each Tractor event's bracket, in turn."""
    if st.query_params.get("rotate") != "1" or "," not in (st.query_params.get("event") or ""):
        return None
    formats = queries.event_formats(database())
    slots = [(e, page) for e in hall_events(list(formats))
             for page in (("live", "pairings") if formats[e] else ("bracket",))]
    if not slots:
        return None
    return slots[int(now() // ROTATE_SECONDS) % len(slots)]


def selected_event(swiss: bool | None = None) -> str | None:
    """`?event=ID`, else the most recent event (of the page's kind: `swiss` True for the
    ranking and pairings, False for the bracket, when there is one); a selector in the
    sidebar outside projector. Two events in one hall: the one whose slot is on show."""
    path = database()
    listing = queries.event_names(path)
    if listing.is_empty():
        return None
    ids = listing["event_id"].to_list()
    slot = hall_slot()
    if slot is not None:
        return slot[0]
    wanted = st.query_params.get("event")
    chosen = wanted if wanted in ids else ids[0]
    if wanted not in ids and swiss is not None:
        formats = queries.event_formats(path)
        chosen = next((e for e in ids if formats[e] == swiss), chosen)
    if not projector():
        names = dict(zip(ids, listing["name"].to_list(), strict=True))
        chosen = st.sidebar.selectbox(t("event_picker", lang()), ids, index=ids.index(chosen),
                                      format_func=lambda i: f"{names[i]} ({i})",
                                      placeholder=t("choose", lang()))
        st.query_params["event"] = chosen
    return chosen


def demo_banner(event_id: str | None, language: str) -> None:
    """Demo events say so on every page: their teams and players are invented."""
    from pipeline.operations.demo import demo_ids

    if event_id is not None and event_id.split(",")[0] in demo_ids():
        st.caption(f"【{t('demo_data', language)}】")


def html_table(frame: pl.DataFrame, language: str, test_id: str,
               essential: list[str] | None = None) -> str:
    """A plain HTML table with every cell escaped (names with HTML stay text), in a box that
    scrolls sideways when it is wider than the screen. With `essential`, the other columns
    are left out on a phone (and a line says so)."""
    return TableParts.of(frame, language, test_id, essential).page(0, frame.height)


@dataclass(frozen=True)
class TableParts:
    """`html_table`'s HTML in parts — its head, each row, its end — so that a page of a big
    table made once is a join of rows (dashboard.versioned)."""

    head: str
    rows: tuple[str, ...]
    tail: str

    @classmethod
    def of(cls, frame: pl.DataFrame, language: str, test_id: str,
           essential: list[str] | None = None) -> TableParts:
        optional = [essential is not None and c not in essential for c in frame.columns]
        head = "".join(f'<th class="{"opt" if o else ""}">{html.escape(column(c, language))}</th>'
                       for c, o in zip(frame.columns, optional, strict=True))
        numeric = [dtype.is_numeric() for dtype in frame.dtypes]
        classes = [f'{"num" if n else ""}{" opt" if o else ""}'
                   for n, o in zip(numeric, optional, strict=True)]
        body = tuple("<tr>" + "".join(f'<td class="{c}">{html.escape("" if v is None else str(v))}'
                                      "</td>" for v, c in zip(row, classes, strict=True)) + "</tr>"
                     for row in frame.iter_rows())
        hint = (f'<div class="phone-only">{html.escape(t("more_columns", language))}</div>'
                if any(optional) else "")
        return cls(f'<div class="paisai-wrap"><table class="paisai" data-testid="{test_id}">'
                   f"<thead><tr>{head}</tr></thead><tbody>", body,
                   f"</tbody></table></div>{hint}")

    def page(self, start: int, count: int) -> str:
        return f"{self.head}{''.join(self.rows[start:start + count])}{self.tail}"


def uploader_words(language: str, types: list[str]) -> None:
    """Streamlit's file uploader takes no words of its own ("Upload", "200MB per file •
    CSV"; streamlit/streamlit#13500 asks for them): on a Chinese page a style draws the
    page's words over them — its limit as the server has it, the types it takes."""
    if language != "zh":
        return
    limit = (f"每个文件不超过 {st.get_option('server.maxUploadSize')}MB · "
             + "、".join(kind.upper() for kind in types))
    button = "[data-testid=stFileUploaderDropzone] button [data-testid=stMarkdownContainer] p"
    note = "[data-testid=stFileUploaderDropzoneInstructions] span"
    said = {button: ("上传文件", "1rem"), note: (limit, ".875rem")}
    st.html("<style>" + "".join(
        f"{where} {{ font-size: 0 !important; }} {where}::after {{ content: "
        f"{json.dumps(words, ensure_ascii=False)}; font-size: {size}; }}"
        for where, (words, size) in said.items()) + "</style>")


def page_style() -> None:
    st.html(TABLE_CSS)
    if projector():
        st.html(PROJECTOR_CSS)


ROTATION = ["live", "pairings", "bracket"]
ROTATE_SECONDS = 30


def hall_base() -> str:
    """The dashboard's address as phones in the hall reach it: the browser's own host, or
    this machine's LAN address when the page was opened on loopback (QR codes, cards) — on
    the phones' port when the phones' process runs (`dashboard.phones`)."""
    from urllib.parse import urlsplit

    from pipeline.operations.phones import phones_base
    from pipeline.operations.serve import is_loopback

    try:
        host = st.context.headers.get("Host") or "127.0.0.1:8501"
    except Exception:  # outside a browser session (AppTest)
        host = "127.0.0.1:8501"
    base = f"http://{host}"
    if is_loopback(base):
        lan = lan_addresses()
        base = f"http://{lan[0]}:{urlsplit(base).port or 8501}" if lan else base
    return phones_base(base)


LAN_SECONDS = 60  # the machine's LAN addresses are read again at most this often


@st.cache_data(ttl=LAN_SECONDS, show_spinner=False)
def lan_addresses() -> list[str]:
    """This machine's LAN addresses (`serve.lan_addresses`), read at most once a minute: each
    read starts a process (`ip`), which the console's and the projector's runs should not."""
    from pipeline.operations.serve import lan_addresses as read

    return read()


def phones_url(event_id: str) -> str:
    """The address of the event's phone pages as phones in the hall reach it."""
    return f"{hall_base()}/m/{event_id}/"


@st.cache_data(max_entries=8, show_spinner=False)
def _qr_img(url: str) -> str:
    """A QR code as an image tag with a data address (st.html keeps images, not SVG)."""
    import segno

    return f"<img alt='QR' src='{segno.make(url, error='m').png_data_uri(scale=4, border=2)}'>"


QR_GUTTER = 210  # pixels kept clear on the projector's right for the QR code (issue 51)


def phones_qr(event_id: str, language: str) -> None:
    """On the projector: a QR code to the event's phone pages (ranking, seats, each team),
    in a gutter of its own on the right: it never covers a column or a row."""
    url = phones_url(event_id)
    st.html(f"<style>.block-container {{ padding-right: {QR_GUTTER}px !important; }}</style>")
    # as wide as the gutter at most, its words wrapping: an English caption one line wide
    # reached over the ranking's last column
    st.html(f"<div data-testid='phones-qr' style='position:fixed;right:18px;bottom:14px;"
            f"width:{QR_GUTTER - 36}px;box-sizing:border-box;background:#fff;padding:6px;"
            f"border-radius:8px;text-align:center;z-index:10'>"
            f"<div style='display:flex;justify-content:center'>{_qr_img(url)}</div>"
            f"<div style='font-size:16px;line-height:1.2'>"
            f"{html.escape(t('phones_qr', language))}</div></div>")


def rotate_if_due(current: str) -> None:
    """With `&rotate=1`, the projector moves ranking → pairings → bracket every 30 s; with
    two events (`?event=ID1,ID2`), across both events' pages."""
    if st.query_params.get("rotate") != "1":
        return
    hall = hall_slot()
    if hall:
        slot = hall[1]
    else:  # one event: only the pages it has (a Swiss event has no bracket, a Tractor
        # event's rounds are its bracket)
        formats = queries.event_formats(database())
        event = st.query_params.get("event") or next(iter(formats), "")
        pages = ROTATION if event not in formats else \
            ("live", "pairings") if formats[event] else ("bracket",)
        slot = pages[int(now() // ROTATE_SECONDS) % len(pages)]
    if slot != current:
        st.switch_page(Path(__file__).parent / "views" / f"{slot}.py",
                       query_params=dict(st.query_params))


STAGE_NAMES_EN = {"决赛": "Final", "半决赛": "Semi-finals", "1/4决赛": "Quarter-finals",
                  "1/8决赛": "Round of 16", "1/16决赛": "Round of 32", "季军赛": "Third place",
                  "小组赛": "Group stage"}


def stage_name(name: str, language: str) -> str:
    """A stage as the page's language says it (stored names are Chinese: A组, 半决赛 …).

    >>> stage_name("B组", "en"), stage_name("半决赛", "en"), stage_name("半决赛", "zh")
    ('Group B', 'Semi-finals', '半决赛')
    """
    if language != "en":
        return name
    if name.endswith("组") and len(name) <= 3:
        return f"Group {name[:-1]}"
    return STAGE_NAMES_EN.get(name, name)


def bracket_html(knockout: list[dict], names: dict[str, str] | None = None,
                 names_first: bool = False) -> str:
    """The knockout rounds as columns, winners in bold, team names beside numbers (names
    first on the projector), levels as organizers write them; every name escaped."""
    names = names or {}

    def label(team: str | None) -> str:
        if team is None:
            return "轮空 bye"
        name = names.get(team) or ""
        return f"{name} {team}".strip() if names_first else f"{team} {name}".strip()

    columns = []
    for stage in knockout:
        cells = []
        for m in stage["matches"]:
            rows = []
            for side, team in (("a", m["team_a"]), ("b", m["team_b"])):
                name = html.escape(label(team))
                won = m["winner"] is not None and m["winner"] == team
                games = " ".join(format_level(g[0 if side == "a" else 1]) for g in m["games"])
                if m.get("decision") and m.get("decided_against") == team:
                    said = DECISIONS[m["decision"]].split()[0]
                    games = f"{games} {said}" if m["decision"] == "time" else said
                rows.append(f"<div class='slot{' won' if won else ''}'>{name}"
                            f"<span>{html.escape(games)}</span></div>")
            cells.append(f"<div class='match'>{''.join(rows)}</div>")
        columns.append(f"<div class='round'><h4>{html.escape(stage['name'])}</h4>"
                       f"{''.join(cells)}</div>")
    size = 34 if names_first else 20  # names first: the projector, read from the back
    style = ("<style>.tree{display:flex;gap:24px;align-items:center}.round{display:flex;"
             "flex-direction:column;justify-content:space-around;gap:16px;min-width:160px}"
             f".round h4{{font-size:{size + 4}px}}"
             ".match{border:1px solid #99a;border-radius:6px;background:#f6f8fc}.slot{display:"
             f"flex;justify-content:space-between;padding:4px 8px;font-size:{size}px}}.slot.won{{"
             "font-weight:700;background:#dbe8ff}.slot span{color:#556;margin-left:12px}</style>")
    return f"{style}<div class='tree' data-testid='knockout'>{''.join(columns)}</div>"


def public_page_event(language: str, swiss: bool | None = None) -> str:
    """The event a public page shows, with the projector's countdown; stops when there is none."""
    from dashboard import clockview

    event_id = selected_event(swiss)
    if event_id is None:
        st.info(t("no_event", language))
        st.stop()
    demo_banner(event_id, language)
    if projector():  # a slim countdown: twenty rows of the ranking fit below it at 1080
        clockview.header(database(), event_id, size=44, language=language)
    return event_id
