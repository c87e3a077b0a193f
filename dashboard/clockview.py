"""The countdown every projector page shows in its header, and the chime."""

from __future__ import annotations

import io
import math
import struct
import wave

import streamlit as st

from pipeline import clockstore, db, events

COLOURS = {"running": "#1f3b63", "paused": "#6b7280", "reminder": "#d97706",
           "time_up": "#b91c1c", "stopped": "#374151", "not_started": "#6b7280"}
WORDS = {"running": "", "paused": "暂停 paused", "not_started": "未开始 not started",
         "stopped": "本轮结束 round over", "time_up": "时间到", "reminder": ""}


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


def _html(state: str, remaining: int, round_no: int, message: str, size: int) -> str:
    minutes, seconds = divmod(remaining, 60)
    extra = message if state == "reminder" else WORDS[state]
    return (f"<div data-testid='clock' data-state='{state}' style='background:{COLOURS[state]};"
            f"color:#fff;border-radius:10px;padding:8px 20px;display:flex;align-items:center;"
            f"justify-content:space-between;font-weight:700'>"
            f"<span style='font-size:{size // 2}px'>第 {round_no} 轮</span>"
            f"<span style='font-size:{size}px;font-variant-numeric:tabular-nums'>"
            f"{minutes:02d}:{seconds:02d}</span>"
            f"<span style='font-size:{size // 2}px'>{extra}</span></div>")


def _chime_if_due(event_id: str, state: str, key: str, on: bool) -> None:
    before = st.session_state.get(key)
    st.session_state[key] = state
    if on and before is not None and before != state and state in ("reminder", "time_up"):
        st.audio(chime_wav(), format="audio/wav", autoplay=True)


def header(database, event_id: str, size: int = 56) -> None:
    @st.fragment(run_every=1)
    def countdown() -> None:
        with db.reading(database) as con:
            event = events.load(con, event_id)
            status = clockstore.status(con, event)
            on = clockstore.chime(con, event_id)
        st.html(_html(status.state, status.remaining_seconds, status.round,
                      event.ruleset.clock["reminder_message"], size))
        _chime_if_due(event_id, status.state, f"clock-{event_id}-{size}", on)

    countdown()
