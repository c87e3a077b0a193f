"""HTML from Jinja2 templates in `pipeline/templates/`, autoescaped: every value placed in a
page is escaped unless a template says `| safe` (only the QR code's own SVG does).

Long tables (10,000 ranking rows, 10,000 team pages of results) are too slow cell by cell in
Jinja, so their rows are built column-wise by `table_rows`, which escapes every cell itself
(one place, no cell left out) and hands the template Markup.
"""

from __future__ import annotations

from contextvars import ContextVar
from functools import cache
from urllib.parse import quote, urlencode

import jinja2
import polars as pl
from markupsafe import Markup

from pipeline.base.chinese import one_language

ESCAPES = [("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&#34;"), ("'", "&#39;")]


def escaped(cell: pl.Expr) -> pl.Expr:
    """A column's cells as escaped HTML text (empty for null), as autoescape writes them.

    >>> pl.select(escaped(pl.lit("<b>A&B</b>"))).item()
    '&lt;b&gt;A&amp;B&lt;/b&gt;'
    """
    text = cell.cast(pl.String).fill_null("")
    for raw, entity in ESCAPES:
        text = text.str.replace_all(raw, entity, literal=True)
    return text


def row_html(schema: pl.Schema, link: pl.Expr | None = None, link_column: str = "") -> pl.Expr:
    """One `<tr>` per row: every cell escaped, numbers right-aligned (class n), and
    `link_column` linked where `link` (an escaped relative address) is not null."""
    cells = []
    for name, dtype in schema.items():
        text = escaped(pl.col(name))
        if link is not None and name == link_column:
            text = pl.when(link.is_not_null()).then(pl.concat_str(
                [pl.lit('<a href="'), escaped(link), pl.lit('">'), text, pl.lit("</a>")])
            ).otherwise(text)
        opening = pl.lit('<td class="n">') if dtype.is_numeric() else pl.lit('<td class="">')
        if dtype.is_numeric():
            opening = pl.when(pl.col(name).is_null()).then(pl.lit('<td class="">')).otherwise(
                opening)
        cells.append(pl.concat_str([opening, text, pl.lit("</td>")]))
    return pl.concat_str([pl.lit("<tr>"), *cells, pl.lit("</tr>")])


def table_rows(frame: pl.DataFrame, links: dict[str, str] | None = None,
               link_column: str = "team_no") -> Markup:
    """A frame's rows as HTML for a template (escaped here, cell by cell, column-wise)."""
    link = None
    if links:
        link = pl.col(link_column).replace_strict(links, default=None, return_dtype=pl.String)
    rows = frame.select(row_html(frame.schema, link, link_column)).to_series()
    return Markup("".join(rows.to_list()))  # noqa: S704 - every cell escaped by row_html


# The hall's page being answered (path, query), set by the hall's server for each request:
# every plain page's bar then leads back to the event's ranking and offers the other
# language (issue 51). Unset (the static site): the bar is the template's links alone.
PAGE_ADDRESS: ContextVar[tuple[str, dict[str, str]] | None] = ContextVar("page_address",
                                                                         default=None)
BAR_WORDS = {"zh": {"ranking": "排名", "pairings": "对阵", "teams": "各队", "officials": "裁判",
                    "other": "English"},
             "en": {"ranking": "Ranking", "pairings": "Pairings", "teams": "Teams",
                    "officials": "Officials", "other": "中文"}}
NOT_A_LINK = ("", "#", "/o")  # what a page without such a link passes


def bar(links: dict, said: dict, lang: str) -> list[tuple[str, str, str]]:
    """The navigation bar of a plain page as (address, words, name): its links with words
    (never an empty link), the event's ranking from any page of the event, the officials'
    home on their pages, and the same page in the other language.

    >>> PAGE_ADDRESS.set(("/t", {"event": "e", "sig": "x", "lang": "en"})) and None
    >>> bar({"ranking": "#", "pairings": "#", "teams": "#"}, {}, "en")
    [('/m/e/?lang=en', 'Ranking', 'ranking'), ('/t?event=e&sig=x', '中文', 'lang')]
    >>> PAGE_ADDRESS.set(None) and None
    >>> bar({"ranking": "index.html", "pairings": "p.html", "teams": "t.html"},
    ...     {"ranking": "排名", "pairings": "对阵", "teams": "各队"}, "zh-CN")[1]
    ('p.html', '对阵', 'pairings')
    """
    english = lang == "en"
    words = BAR_WORDS["en" if english else "zh"]
    here = PAGE_ADDRESS.get()
    path, query = here if here else ("", {})
    suffix = "?lang=en" if english else ""
    shown: list[tuple[str, str, str]] = []
    for key in ("ranking", "pairings", "teams"):
        href = links.get(key) or ""
        if href in NOT_A_LINK and key == "ranking" and query.get("event"):
            href = f"/m/{quote(query['event'], safe='')}/{suffix}"
        if english and href.startswith("/m/") and "lang=" not in href:  # stay in English
            href += "&lang=en" if "?" in href else "?lang=en"
        if href not in NOT_A_LINK and href not in (h for h, _, _ in shown):
            shown.append((href, said.get(key) or words[key], key))
    if path.startswith("/o"):
        event = {"event": query["event"]} if query.get("event") else {}
        shown.append((f"/o?{urlencode({**event, **({'lang': 'en'} if english else {})})}"
                      .rstrip("?"), words["officials"], "officials"))
    if here:
        kept = {k: v for k, v in query.items() if k != "lang"
                and (not path.startswith("/m/") or k == "q")}
        if path.startswith("/o/"):  # a form's answer: the officials' page itself
            path = "/o"
        other = {**kept, **({} if english else {"lang": "en"})}
        shown.append((path + (f"?{urlencode(other)}" if other else ""), words["other"], "lang"))
    return shown


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("pipeline", "templates"),
        autoescape=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.globals["bar"] = bar
    return env


def render(name: str, **context: object) -> str:
    """A template filled in.

    >>> page = render("site/teams.html", title="<b>", up="", teams=[("A1", "<i>", "t/A1.html")])
    >>> "<title>&lt;b&gt;</title>" in page, '<a href="t/A1.html">A1 &lt;i&gt;</a>' in page
    (True, True)
    """
    return environment().get_template(name).render(**in_one_language(context))


SAID = ("message", "note")  # what a plain page says back: a refusal, a confirmation


def in_one_language(context: dict) -> dict:
    """What a page says back (`message`, `note`, `lines`) in the page's language only: the
    pipeline's refusals are written in both ("记分表已有变化 the sheet changed"), a page is
    in one (issue 51).

    >>> in_one_language({"lang": "zh-CN", "message": "已裁定 decided", "lines": ["甲 one"]})
    {'lang': 'zh-CN', 'message': '已裁定', 'lines': ['甲']}
    """
    if "lang" not in context:
        return context
    language = "en" if context["lang"] == "en" else "zh"
    said = {key: one_language(context[key], language) for key in SAID
            if isinstance(context.get(key), str) and not isinstance(context[key], Markup)}
    if isinstance(context.get("lines"), list):
        said["lines"] = [one_language(line, language) if isinstance(line, str)
                         and not isinstance(line, Markup) else line
                         for line in context["lines"]]
    return {**context, **said}
