"""The countdown every projector page shows in its header, and the chime."""

from __future__ import annotations

import html
import io
import math
import struct
import wave

import streamlit as st

from pipeline.base import db, events
from pipeline.day import clockstore

COLOURS = {"running": "#1f3b63", "paused": "#6b7280", "reminder": "#d97706",
           "time_up": "#b91c1c", "stopped": "#374151", "not_started": "#6b7280",
           "over": "#166534"}
WORDS = {"zh": {"running": "", "paused": "暂停", "not_started": "未开始", "stopped": "本轮结束",
                "time_up": "时间到", "reminder": "", "over": "比赛结束"},
         "en": {"running": "", "paused": "paused", "not_started": "not started",
                "stopped": "round over", "time_up": "time is up", "reminder": "",
                "over": "the event is over"}}


def chime_wav(seconds: float = 0.8, frequency: float = 880.0) -> bytes:
    """A short tone as WAV bytes (no files, no downloads)."""
    rate = 16000
    frames = b"".join(
        struct.pack("<h", int(12000 * math.sin(2 * math.pi * frequency * i / rate)
                              * (1 - i / (seconds * rate))))
        for i in range(int(seconds * rate)))
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(frames)
    return out.getvalue()


def _html(state: str, remaining: int, round_no: int, message: str, size: int,
          language: str = "zh", title: str = "") -> str:
    """The countdown: the round, the time and the state on one line where they fit, wrapping
    whole (never a character per line); sizes follow the screen's width."""
    minutes, seconds = divmod(remaining, 60)
    extra = message if state == "reminder" else WORDS[language][state]
    label = f"第 {round_no} 轮" if language == "zh" else f"Round {round_no}"
    time_text = "" if state == "over" else f"{minutes:02d}:{seconds:02d}"
    heading = (f"<div style='font-size:min({size // 3}px,7vw);width:100%;white-space:nowrap;"
               f"overflow:hidden;text-overflow:ellipsis'>{html.escape(title)}</div>"
               if title else "")
    return (f"<div data-testid='clock' data-state='{state}' style='background:{COLOURS[state]};"
            f"color:#fff;border-radius:10px;padding:8px 20px;display:flex;flex-wrap:wrap;"
            f"align-items:center;justify-content:space-between;gap:0 24px;font-weight:700'>"
            f"{heading}"
            f"<span style='font-size:min({size // 2}px,9vw);white-space:nowrap;line-height:1.3'>{label}</span>"
            f"<span style='font-size:min({size}px,26vw);white-space:nowrap;line-height:1.2;"
            f"font-variant-numeric:tabular-nums'>{time_text}</span>"
            f"<span style='font-size:min({size // 2}px,9vw);white-space:nowrap;line-height:1.3'>"
            f"{html.escape(extra)}</span></div>")


@st.cache_data(ttl=10, show_spinner=False)
def _event_over(database: str, event_id: str) -> bool:
    """Every planned round reported (read at most every 10 s, not every second)."""
    from pathlib import Path

    from pipeline.ranking import awards, scoring
    with db.reading(Path(database)) as con:
        event = events.load(con, event_id)
        if not event.ruleset.is_swiss or not event.ruleset.rounds:
            return False
        return (awards.unfinished(con, event) is None
                and scoring.latest_round(con, event_id) >= event.ruleset.rounds)


def _chime_if_due(event_id: str, state: str, key: str, on: bool) -> None:
    before = st.session_state.get(key)
    st.session_state[key] = state
    if on and before is not None and before != state and state in ("reminder", "time_up"):
        st.audio(chime_wav(), format="audio/wav", autoplay=True)


TICKING = ("running", "reminder")  # the states whose time goes down
STILL_SECONDS = 3  # a clock that is not counting is asked this often (a start shows within it)


def header(database, event_id: str, size: int = 56, language: str = "zh",
           with_name: bool = False, on_tick=None, keep_page: bool = False) -> None:
    """The round's clock, drawn again every second while it counts and every few seconds
    while it does not (a page that redraws every second for nothing loses an upload now and
    then: a file given while a timer's run is under way); when the clock starts or stops
    counting, the page is drawn again at the new pace. `on_tick()` after each drawing.
    `keep_page`: the pace changes within the clock's own timers, the page is never drawn
    again for it (the console: its file box, issue 53 — a whole redraw as a file was chosen
    lost the upload)."""
    with db.reading(database) as con:
        event = events.load(con, event_id)
        # the page's own drawing shows what was read here; the timers' runs read anew
        first = [(event, clockstore.status(con, event), clockstore.chime(con, event_id))]
    ticking = first[0][1].state in TICKING

    def read() -> tuple:
        if first:
            return first.pop()
        with db.reading(database) as con:
            event = events.load(con, event_id)
            return event, clockstore.status(con, event), clockstore.chime(con, event_id)

    def draw(event, status, on: bool) -> None:
        state = status.state
        if _event_over(str(database), event_id):
            state = "over"  # after the last round: no clock waiting or counting on
        st.html(_html(state, status.remaining_seconds, status.round,
                      event.ruleset.clock["reminder_message"], size, language,
                      event.name if with_name else ""))
        _chime_if_due(event_id, status.state, f"clock-{event_id}-{size}", on)

    if keep_page:
        _paced(read, draw, on_tick)
        return

    @st.fragment(run_every=1 if ticking else STILL_SECONDS)
    def countdown() -> None:
        event, status, on = read()
        draw(event, status, on)
        if (status.state in TICKING) != ticking and own_run():
            st.rerun(scope="app")  # the timer's pace follows the clock
        if on_tick is not None:
            on_tick()

    countdown()


def _paced(read, draw, on_tick=None) -> None:
    """The clock at its pace without the page: a timer every STILL_SECONDS asks the clock's
    state and, while it counts, holds a second timer that draws it every second (started
    and stopped by the first one's runs: Streamlit drops a nested timer its parent no longer
    draws). A start or a stop shows within STILL_SECONDS, as a start did before."""

    @st.fragment(run_every=STILL_SECONDS)
    def clock_paced() -> None:
        event, status, on = read()
        if status.state in TICKING:
            handed = [(event, status, on)]

            @st.fragment(run_every=1)
            def clock_ticking() -> None:
                found = handed.pop() if handed else read()
                draw(*found)
                if on_tick is not None:
                    on_tick()

            clock_ticking()
        else:
            draw(event, status, on)
            if on_tick is not None:
                on_tick()

    clock_paced()


def own_run() -> bool:
    """This is a fragment's own run (its timer), not the page's: a page run restarted from
    there would lose the click it is answering."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx and ctx.fragment_ids_this_run)
