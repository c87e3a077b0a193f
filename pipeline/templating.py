"""HTML from Jinja2 templates in `pipeline/templates/`, autoescaped: every value placed in a
page is escaped unless a template says `| safe` (only the QR code's own SVG does)."""

from __future__ import annotations

from functools import cache

import jinja2


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
