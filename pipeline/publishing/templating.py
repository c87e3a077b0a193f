"""HTML from Jinja2 templates in `pipeline/templates/`, autoescaped: every value placed in a
page is escaped unless a template says `| safe` (only the QR code's own SVG does).

Long tables (10,000 ranking rows, 10,000 team pages of results) are too slow cell by cell in
Jinja, so their rows are built column-wise by `table_rows`, which escapes every cell itself
(one place, no cell left out) and hands the template Markup.
"""

from __future__ import annotations

from functools import cache

import jinja2
import polars as pl
from markupsafe import Markup

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


@cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("pipeline", "templates"),
        autoescape=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )


def render(name: str, **context: object) -> str:
    """A template filled in.

    >>> page = render("site/teams.html", title="<b>", up="", teams=[("A1", "<i>", "t/A1.html")])
    >>> "<title>&lt;b&gt;</title>" in page, '<a href="t/A1.html">A1 &lt;i&gt;</a>' in page
    (True, True)
    """
    return environment().get_template(name).render(**context)
