"""Plotly figures for the public pages."""

from __future__ import annotations

import plotly.express as px
import plotly.graph_objects as go
import polars as pl

TOP_TEAMS = 12  # a bump chart of more lines is unreadable (and plotly takes seconds a line)


def rank_progression(frame: pl.DataFrame, title: str, also: str | None = None) -> go.Figure:
    """A bump chart: the rank after each round of the teams now in the first TOP_TEAMS
    places (and of `also`, a team the reader chose), first place on top."""
    last = frame.filter(pl.col("round") == frame["round"].max())
    shown = last.filter((pl.col("rank") <= TOP_TEAMS) | (pl.col("team_no") == (also or "")))
    frame = frame.filter(pl.col("team_no").is_in(shown["team_no"].implode()))
    fig = px.line(frame.sort("round").to_pandas(), x="round", y="rank", color="team_no",
                  markers=True, title=title)
    fig.update_yaxes(autorange="reversed", dtick=1, title="名次 rank")
    fig.update_xaxes(dtick=1, title="轮次 round")
    fig.update_layout(height=420, legend_title_text="")
    return fig


def level_differences(frame: pl.DataFrame, title: str, count_label: str = "桌数") -> go.Figure:
    """How many tables ended with each level difference, by round (whole-number ticks)."""
    fig = px.histogram(frame.to_pandas(), x="level_diff", color=frame["round"].cast(pl.String)
                       .to_list() if frame.height else None, nbins=14, title=title)
    fig.update_xaxes(dtick=1, title="级差 level difference")
    tallest = frame.group_by("level_diff").len()["len"].max() if frame.height else 1
    fig.update_yaxes(title=count_label, tickformat="d", rangemode="tozero",
                     dtick=max(1, -(-(tallest or 1) // 8)))  # whole tables, at most ~8 ticks
    fig.update_layout(height=320, bargap=0.1, legend_title_text="轮 round")
    return fig
