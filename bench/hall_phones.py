"""The phones of a hall, for locust (`bench/hall.py` starts it; not run on its own).

PAISAI_HALL_CHANNEL chooses what the phones open:
- "plain": the phones' routes. Every phone opens the ranking (`/m/{event}/`), its table
  (`/pairings?q=` its team) or its team's page, then refreshes as the page's meta refresh
  or a thumb does (5–20 s), revalidating with the ETag it was given. Every tenth phone also
  holds a side's signed report link and, inside the reporting window, opens the form and
  sends its table's levels.
- "streamlit": the same phones opening the Streamlit pages' addresses (/live or /pairings,
  a phone's User-Agent): a phone the server sends to the plain page (issue 53) reads and
  refreshes that page; one it lets through speaks Streamlit's websocket protocol as a
  browser does: one session each, a rerun per refresh. Every DESKTOP_EVERY-th phone asks
  for the desktop site (a desktop browser's User-Agent), its requests named "desktop site
  (streamlit)" or "desktop site (plain)" by where the server let it in.

Every phone comes through the hall's proxy (an X-Forwarded-For of its own), as phones on the
hall's network would reach a server behind nginx.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import time
import urllib.error
import urllib.request

# Streamlit's protocol imported here, before any phone starts: imported by the first Streamlit
# phone's task, its modules (all of streamlit, ~0.4 s of CPU) held up every phone of this process —
# gevent's phones share one thread —, and the plain phones' requests in flight at that moment
# were timed ~0.4 s slower by the bench, not by the server (a server profile showed its event
# loop idle meanwhile: the requests had not been sent)
import websocket
from locust import HttpUser, User, between, task
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.agents import DESKTOP_AGENT, PHONE_AGENT

EVENT = os.environ.get("PAISAI_HALL_EVENT", "bench")
TEAMS = json.loads(os.environ.get("PAISAI_HALL_TEAMS", '["1"]'))
REPORTS = json.loads(open(os.environ["PAISAI_HALL_REPORTS"], encoding="utf-8").read()) \
    if os.environ.get("PAISAI_HALL_REPORTS") else []
REPORT_FROM = float(os.environ.get("PAISAI_HALL_REPORT_FROM", "0"))
REPORT_TO = float(os.environ.get("PAISAI_HALL_REPORT_TO", "0"))
CHANNEL = os.environ.get("PAISAI_HALL_CHANNEL", "plain")
DESKTOP_EVERY = 5  # one phone in five on the Streamlit pages' addresses asks for the desktop site
NUMBERS = itertools.count()
LOG = os.environ.get("PAISAI_HALL_LOG", "")  # a file: one JSON line per Streamlit-channel request


def _address(n: int) -> str:
    return f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}"


class PlainPhone(HttpUser):
    """A phone on the plain routes."""

    wait_time = between(5, 20)
    abstract = CHANNEL != "plain"

    def on_start(self) -> None:
        self.number = next(NUMBERS)
        team = TEAMS[self.number % len(TEAMS)]
        self.page = [f"/m/{EVENT}/", f"/m/{EVENT}/pairings?q={team}",
                     f"/m/{EVENT}/teams/{team}"][self.number % 3]
        self.name = ["ranking", "find my table", "team page"][self.number % 3]
        self.etag = ""
        reporting = self.number % 10 == 0 and self.number // 10 < len(REPORTS)
        self.report = REPORTS[self.number // 10] if reporting else None
        self.report_at = random.uniform(REPORT_FROM, REPORT_TO)
        self.headers = {"X-Forwarded-For": _address(self.number)}
        self._open()

    def _open(self) -> None:
        headers = {**self.headers, **({"If-None-Match": self.etag} if self.etag else {})}
        with self.client.get(self.page, name=self.name, headers=headers,
                             catch_response=True) as answer:
            if answer.status_code == 200:
                self.etag = answer.headers.get("ETag", "")
                answer.success()
            elif answer.status_code == 304:
                answer.success()
            else:
                answer.failure(f"HTTP {answer.status_code} {answer.error or ''}"[:200])

    @task
    def refresh(self) -> None:
        if self.report and time.time() >= self.report_at:
            self._send_report()
        self._open()

    def _send_report(self) -> None:
        report, self.report = self.report, None
        path = report["url"].split("://", 1)[-1].split("/", 1)[-1]
        with self.client.get("/" + path, name="report form", headers=self.headers,
                             catch_response=True) as form:
            if "<form" not in form.text:
                form.failure(f"HTTP {form.status_code}: no form")
                return
        with self.client.post("/" + path, name="report", headers={
                **self.headers, "Content-Type": "application/x-www-form-urlencoded"},
                data={"ew_level": report["ew_level"], "ns_level": report["ns_level"],
                      "code": report["code"]},
                catch_response=True) as sent:
            if "data-testid='said'" not in sent.text:
                sent.failure(f"HTTP {sent.status_code}: not stored")


class StreamlitPhone(User):
    """A phone on a Streamlit page: its websocket session, a rerun per refresh."""

    wait_time = between(5, 20)
    abstract = CHANNEL != "streamlit"

    def on_start(self) -> None:
        self.number = next(NUMBERS)
        self.page_name = "live" if self.number % 2 else "pairings"
        self.desktop = self.number % DESKTOP_EVERY == DESKTOP_EVERY - 1
        self.agent = DESKTOP_AGENT if self.desktop else PHONE_AGENT
        self.socket = self.plain = None
        started = time.perf_counter()
        try:  # the address as a phone opens it: the server may send it to the plain page
            self.plain = self._redirect(f"/{self.page_name}?event={EVENT}")
        except Exception as exc:
            self._fire("first page", started, exc)
            return
        if self.plain is not None:
            self._plain("first page", started)
            return
        url = self.host.replace("http://", "ws://") + "/_stcore/stream"
        try:
            self.socket = websocket.create_connection(
                url, subprotocols=["streamlit"], timeout=60,
                header=[f"X-Forwarded-For: {_address(self.number)}",
                        f"User-Agent: {self.agent}"])
        except Exception as exc:  # a refused session is a failed first page
            self._fire("first page", started, exc)
            self.socket = None
            return
        self._run("first page", started)

    def _get(self, path: str, follow: bool):
        class Stay(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):
                return None

        handlers = [] if follow else [Stay]
        # (a redirect to the phones' port is an absolute address)
        url = path if path.startswith(("http://", "https://")) else self.host + path
        request = urllib.request.Request(url, headers={
            "User-Agent": self.agent, "X-Forwarded-For": _address(self.number)})
        return urllib.request.build_opener(*handlers).open(request, timeout=60)

    def _redirect(self, path: str) -> str | None:
        """Where the server sends a phone opening `path`, None when it serves the page."""
        try:
            self._get(path, follow=False).read()
        except urllib.error.HTTPError as answer:
            if answer.code in (301, 302, 303, 307):
                return answer.headers["Location"]
            raise
        return None

    def _plain(self, name: str, started: float) -> None:
        try:
            size = len(self._get(self.plain, follow=True).read())
        except Exception as exc:
            self._fire(name, started, exc)
            return
        self._fire(name, started, None, size)

    def _fire(self, name: str, started: float, exc: Exception | None, size: int = 0) -> None:
        kind = name
        if self.desktop:  # where the server let it in
            name = "desktop site (plain)" if self.plain else "desktop site (streamlit)"
        if LOG:  # one line per request (PAISAI_HALL_LOG): which requests make the slow 5 %
            with open(LOG, "a", encoding="utf-8") as f:
                f.write(json.dumps({"t": time.time(), "phone": self.number, "kind": kind,
                                    "page": self.page_name, "desktop": self.desktop,
                                    "where": "plain" if self.plain else "streamlit",
                                    "seconds": time.perf_counter() - started, "bytes": size,
                                    "failed": exc is not None}) + "\n")
        self.environment.events.request.fire(
            request_type="WS", name=f"{self.page_name}: {name}" if not self.desktop else name,
            response_time=(time.perf_counter() - started) * 1000, response_length=size,
            exception=exc, context={})

    def _run(self, name: str, started: float) -> None:
        """Ask for the page's script to run and wait until it has drawn the page."""
        again = BackMsg()
        again.rerun_script.query_string = f"event={EVENT}"
        again.rerun_script.page_name = self.page_name
        size = 0
        try:
            self.socket.send_binary(again.SerializeToString())
            while True:
                raw = self.socket.recv()
                size += len(raw)
                message = ForwardMsg()
                message.ParseFromString(raw)
                if message.WhichOneof("type") == "script_finished":
                    break
        except Exception as exc:
            self._fire(name, started, exc, size)
            return
        self._fire(name, started, None, size)

    @task
    def refresh(self) -> None:
        if self.socket is not None:
            self._run("refresh", time.perf_counter())
        elif self.plain is not None:
            self._plain("refresh", time.perf_counter())

    def on_stop(self) -> None:
        if self.socket is not None:
            self.socket.close()
