"""Where an event's site is published — a folder or object storage — remembered per event
(`publish_targets`), so that `paisai watch`, the console's upload and its pairing button
publish it again there. The endpoint of an S3-compatible store is kept; credentials never
are (boto3's chain: the environment or the profile). A module of its own, importing the
publisher only to publish, so that a command that prints the site's address (the pairings'
QR code) imports neither the publisher nor its templates (issue 53)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from pipeline.base import db
from pipeline.publishing.objectstore import Location, is_url, parse, refuse_other_scheme

if TYPE_CHECKING:
    import duckdb


class Target(NamedTuple):
    place: Path | Location
    base_url: str | None

    @property
    def shown(self) -> str:
        return self.place.url if isinstance(self.place, Location) else str(self.place)


def place_of(to: str, endpoint: str | None) -> Path | Location:
    """`--to` as given: an s3:// address (with its endpoint) or a folder; any other address
    (`https://…`, `oss://…`, `s3:/…`) refused (UsageError)."""
    refuse_other_scheme(to)
    if is_url(to):
        return parse(to, endpoint)
    if endpoint is not None:
        from pipeline.base.errors import UsageError
        raise UsageError("--endpoint-url 只用于 s3:// 地址 --endpoint-url is for an s3:// "
                         f"address only, not a folder: {to}")
    return Path(to)


def remember(database: Path, event_id: str, place: Path | Location,
             base_url: str | None) -> None:
    """Keep where the event's site is published, for re-publishing after each change."""
    if isinstance(place, Location):
        where, endpoint = place.url, place.endpoint
    else:
        where, endpoint = str(place.resolve()), None
    with db.writing(database) as con:
        con.execute("insert or replace into publish_targets (event_id, out_dir, base_url, "
                    "endpoint_url) values (?, ?, ?, ?)", [event_id, where, base_url, endpoint])


def target(database: Path, event_id: str) -> Target | None:
    """The event's publish place and address: as `paisai publish` left them, else env
    PAISAI_PUBLISH_DIR/<event>; None when the event has no site."""
    with db.reading(database) as con:
        return stored_target(con, event_id)


def stored_target(con: duckdb.DuckDBPyConnection, event_id: str) -> Target | None:
    """`target` read on an open connection."""
    found = db.rows(con, "select out_dir, base_url, endpoint_url from publish_targets "
                         "where event_id = ?", [event_id])
    if found:
        where, base_url, endpoint = found[0]
        return Target(parse(where, endpoint) if is_url(where) else Path(where), base_url)
    folder = os.environ.get("PAISAI_PUBLISH_DIR")
    return Target(Path(folder) / event_id, None) if folder else None


def republish(database: Path, event_id: str) -> list[str] | None:
    """Publish the event's site again where it is published, now (only changed files are
    written or sent); None when the event has no site. For the command line and the
    watched folder; the hall's server uses `republish_soon`."""
    from pipeline.publishing import remote
    from pipeline.publishing.publish import publish

    found = target(database, event_id)
    if found is None:
        return None
    if isinstance(found.place, Location):
        return remote.publish_to_store(database, event_id, found.place, found.base_url).changed
    return publish(database, event_id, found.place, found.base_url)


def republish_soon(database: Path, event_id: str) -> Target | None:
    """Within the hall's server: a folder is written at once (a local disk, quick); a store
    is published in the background and never holds a page (its outcome in
    `remote.last_outcome`). Returns the target, None when the event has no site."""
    from pipeline.publishing import remote
    from pipeline.publishing.publish import publish

    found = target(database, event_id)
    if found is None:
        return None
    if isinstance(found.place, Location):
        remote.publish_soon(database, event_id, found.place, found.base_url)
    else:
        publish(database, event_id, found.place, found.base_url)
    return found
