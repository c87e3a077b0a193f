"""The static site on object storage (`paisai publish --to s3://bucket/prefix`), behind a CDN.

Only what changed is uploaded: the store keeps a manifest (`.paisai-site.json`: each
file's SHA-256) beside the site, and a file whose hash it already lists is not sent again.
The order is what a reader needs: every changed page first (in parallel), index.html — the
page a reader starts from — last of the pages, then the files of pages that are gone are
deleted, and the manifest is written at the very end. A failure at any step leaves the
index and the manifest as they were: a reader sees the last whole round, and the next
publish sends again whatever this one could not.

Each file has its Content-Type and Cache-Control: pages and data briefly cached (a round's
change reaches phones through a CDN within half a minute), the style sheet under a hashed
name cached for a year (`immutable`).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.base.errors import PaisaiError, UsageError
from pipeline.publishing.objectstore import Location, Store
from pipeline.publishing.publish import SITE_NAMES, site_facts, write_pages

MANIFEST = ".paisai-site.json"
INDEX = "index.html"
TYPES = {".html": "text/html; charset=utf-8", ".json": "application/json; charset=utf-8",
         ".css": "text/css; charset=utf-8"}
PAGE_CACHE = "public, max-age=30"
STYLE_CACHE = "public, max-age=300"  # style.css: kept for pages saved before the hashed name
ASSET_CACHE = "public, max-age=31536000, immutable"
WORKERS = 16
IN_FLIGHT = 64  # pages held in memory while they wait for an upload


def content_type(relative: str) -> str:
    """The file's Content-Type, UTF-8 for text.

    >>> content_type("teams/A1.html"), content_type("standings.json")
    ('text/html; charset=utf-8', 'application/json; charset=utf-8')
    """
    return TYPES.get(relative[relative.rfind("."):], "application/octet-stream")


def cache_control(relative: str) -> str:
    """Pages and data briefly, a hashed asset for a year.

    >>> cache_control("index.html"), cache_control("assets/style-0a1b.css")
    ('public, max-age=30', 'public, max-age=31536000, immutable')
    """
    if relative.startswith("assets/"):
        return ASSET_CACHE
    return STYLE_CACHE if relative.endswith(".css") else PAGE_CACHE


@dataclass
class Published:
    uploaded: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: int = 0

    @property
    def changed(self) -> list[str]:
        return self.uploaded + self.deleted


class _StoreSite:
    """`write_pages`' site on a store: each page hashed as it is made, a changed one sent
    at once on a worker (a bounded number waiting), index.html kept for last."""

    def __init__(self, store: Store, known: dict[str, str]):
        self.store = store
        self.known = known
        self.digests: dict[str, str] = {}
        self.done = Published()
        self.pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="paisai-upload")
        self.slots = threading.BoundedSemaphore(IN_FLIGHT)
        self.pending: list[Future] = []
        self.failure: BaseException | None = None  # the first upload that failed
        self.index: bytes | None = None

    def _send(self, relative: str, data: bytes) -> None:
        try:
            self.store.put(relative, data, content_type(relative), cache_control(relative))
        except BaseException as failed:
            self.failure = self.failure or failed
            raise
        finally:
            self.slots.release()

    def write(self, relative: str, text: str) -> None:
        data = text.encode("utf-8")
        digest = hashlib.sha256(data).hexdigest()
        self.digests[relative] = digest
        if self.known.get(relative) == digest:
            self.done.unchanged += 1
            return
        if relative == INDEX:
            self.index = data
            return
        if self.failure is not None:  # stop making work for a store that refuses it (one
            raise self.failure  # field read: a scan of every upload so far grew with n²)
        self.slots.acquire()
        self.pending.append(self.pool.submit(self._send, relative, data))
        self.done.uploaded.append(relative)

    def settle(self) -> None:
        """Wait for every upload; the first failure is raised (the others are abandoned)."""
        finished, _ = wait(self.pending, return_when=FIRST_EXCEPTION)
        for future in finished:
            if future.exception() is not None:
                self.close(cancel=True)
                raise future.exception()
        self.pending = []

    def close(self, cancel: bool = False) -> None:
        self.pool.shutdown(wait=True, cancel_futures=cancel)


def _manifest(store: Store, event_id: str) -> dict[str, str]:
    """The files the prefix's last publish listed, by their SHA-256. A prefix is checked as
    a folder is (`check_site_folder`) before anything is written: a site of another event,
    or files paisai did not publish, are refused (UsageError), nothing sent."""
    raw = store.get(MANIFEST)
    if raw is None:
        _check_unmarked(store)
        return {}
    try:
        read = json.loads(raw)
        listed = read["files"]
        other = read.get("event")
    except (ValueError, KeyError, TypeError, AttributeError):
        return {}  # a manifest we cannot read: everything is sent again, nothing is lost
    if other is not None and str(other) != event_id:
        where = store.location.url
        raise UsageError(
            f"{where} 是赛事 {other} 的网站，发布 {event_id} 会删除它的页面；请换一个前缀 "
            f"{where} holds the site of event {other}: publishing {event_id} there would "
            f"delete its pages — give another prefix")
    return {str(k): str(v) for k, v in listed.items()}


def _check_unmarked(store: Store) -> None:
    """A prefix without a manifest: empty, or nothing but paisai's own page names (a first
    publish that broke off before its manifest); anything else is someone else's."""
    names = store.names()
    foreign = sorted({n for n in names if n.split("/", 1)[0] not in SITE_NAMES})
    if foreign:
        where = store.location.url
        shown = ", ".join(foreign[:5])
        raise UsageError(
            f"{where} 已有不是 paisai 发布的文件（{shown}），发布会覆盖或删除它们，请换一个新的或空的"
            f"前缀 the prefix holds files paisai did not publish ({shown}); publishing would "
            f"overwrite them: give a new or empty prefix")


def publish_to_store(database: Path, event_id: str, location: Location,
                     base_url: str | None = None,
                     on_page: Callable[[str], None] = lambda page: None,
                     full: bool = False) -> Published:
    """Publish the event's site to the store; only changed files are sent — every file
    with `full` (a page deleted from the bucket by hand is not in the manifest's view) —
    StoreError in words on any failure, the index and manifest then as they were."""
    facts = site_facts(database, event_id)
    store = Store(location)
    known = _manifest(store, event_id)
    site = _StoreSite(store, {} if full else known)
    try:
        write_pages(site, *facts, base_url, on_page)
        site.settle()
    except BaseException:
        site.close(cancel=True)
        raise
    site.close()
    if site.index is not None:
        on_page(INDEX)
        store.put(INDEX, site.index, content_type(INDEX), cache_control(INDEX))
        site.done.uploaded.append(INDEX)
    gone = sorted(set(known) - set(site.digests))
    if gone:
        store.delete(gone)
        site.done.deleted = gone
    if site.done.changed or not known:
        store.put(MANIFEST, json.dumps({"event": event_id, "files": site.digests},
                                       ensure_ascii=False, sort_keys=True).encode("utf-8"),
                  "application/json; charset=utf-8", "no-store")
    return site.done


# The console's publish runs beside the hall, never on its request path: one worker thread
# per event, a change arriving while it runs asks for one more pass; the outcome is kept here
# for the console to show in words.
@dataclass
class Outcome:
    at: float
    ok: bool
    message: str


_lock = threading.Lock()
_running: dict[tuple[str, str], bool] = {}  # (database, event) → another pass wanted
_last: dict[tuple[str, str], Outcome] = {}
RETRIES = 3  # passes a failed background publish is tried, a few seconds apart
RETRY_SECONDS = 5.0
RETRY_MOST = 300.0  # the longest wait between two tries


def retry_after(failures: int) -> float:
    """The one retry policy of a failed publish — the console's background publish and
    `paisai watch` alike: seconds to wait after `failures` failures in a row, doubling from
    RETRY_SECONDS up to RETRY_MOST.

    >>> [retry_after(n) for n in (1, 2, 3, 10)]
    [5.0, 10.0, 20.0, 300.0]
    """
    return min(RETRY_SECONDS * 2 ** (max(failures, 1) - 1), RETRY_MOST)


def publish_soon(database: Path, event_id: str, location: Location,
                 base_url: str | None) -> None:
    """Publish in a background thread; returns at once. A failure is tried again (a few
    times, seconds apart) and kept for `last_outcome`."""
    key = (str(database), event_id)
    with _lock:
        if key in _running:
            _running[key] = True
            return
        _running[key] = False

    def run() -> None:
        while True:
            for attempt in range(RETRIES):
                try:
                    done = publish_to_store(database, event_id, location, base_url)
                    outcome = Outcome(time.time(), True, f"{location.url}: "
                                      f"{len(done.uploaded)} ↑ {len(done.deleted)} ×")
                    break
                except Exception as exc:  # kept in words; the hall goes on
                    outcome = Outcome(time.time(), False, str(exc) if isinstance(
                        exc, PaisaiError) else f"{type(exc).__name__}: {exc}")
                    if attempt + 1 < RETRIES:
                        time.sleep(retry_after(attempt + 1))
            with _lock:
                _last[key] = outcome
                if not _running.get(key):
                    _running.pop(key, None)
                    return
                _running[key] = False

    threading.Thread(target=run, name=f"paisai-publish-{event_id}", daemon=True).start()


def last_outcome(database: Path, event_id: str) -> tuple[Outcome | None, bool]:
    """The last background publish's outcome, and whether one is running now."""
    key = (str(database), event_id)
    with _lock:
        return _last.get(key), key in _running


def wait_idle(database: Path, event_id: str, timeout: float) -> bool:
    """For tests and scripts: wait until no background publish of the event runs."""
    ends = time.monotonic() + timeout
    while time.monotonic() < ends:
        if not last_outcome(database, event_id)[1]:
            return True
        time.sleep(0.05)
    return False
