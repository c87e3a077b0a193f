"""Where an event's static site is published (`paisai publish` keeps it): a module of its own
so that a command that prints the site's address (the pairings' QR code) does not import
the publisher and its templates."""

from __future__ import annotations

import os
from pathlib import Path

from pipeline.base import db


def target(database: Path, event_id: str) -> tuple[Path, str | None] | None:
    """The event's publish folder and address: as `paisai publish` left them, else
    env PAISAI_PUBLISH_DIR/<event>; None when the event has no site."""
    with db.reading(database) as con:
        found = db.rows(con, "select out_dir, base_url from publish_targets where event_id = ?",
                        [event_id])
    if found:
        return Path(found[0][0]), found[0][1]
    folder = os.environ.get("PAISAI_PUBLISH_DIR")
    return (Path(folder) / event_id, None) if folder else None
