"""Plotly figures for the public pages.

Drawn with plotly's graph objects, not plotly express: express built these two figures in
0.45–1.4 s of CPU at 1,000 teams (its frame handling and template merges), the graph
objects in milliseconds — and /live draws them again whenever the event changes."""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl

TOP_TEAMS = 12  # a bump chart of more lines is unreadable (and plotly takes seconds a line)


def rank_progression(frame: pl.DataFrame, title: str, also: str | None = None) -> go.Figure:
    """A bump chart: the rank after each round of the teams now in the first TOP_TEAMS
    places (and of `also`, a team the reader chose), first place on top."""
    last = frame.filter(pl.col("round") == frame["round"].max())
    shown = last.filter((pl.col("rank") <= TOP_TEAMS) | (pl.col("team_no") == (also or "")))
    frame = frame.filter(pl.col("team_no").is_in(shown["team_no"].implode())).sort("round")
    fig = go.Figure()
    for team in frame["team_no"].unique(maintain_order=True).to_list():
        rows = frame.filter(pl.col("team_no") == team)
        fig.add_trace(
            go.Scatter(
                x=rows["round"].to_list(),
                y=rows["rank"].to_list(),
                mode="lines+markers",
                name=team,
                legendgroup=team,
                hovertemplate=f"team_no={team}<br>round=%{{x}}<br>rank=%{{y}}<extra></extra>",
            )
        )
    fig.update_layout(title=title, height=420, legend_title_text="")
    fig.update_yaxes(autorange="reversed", dtick=1, title="名次 rank")
    fig.update_xaxes(dtick=1, title="轮次 round")
    return fig


def level_differences(frame: pl.DataFrame, title: str, count_label: str = "桌数") -> go.Figure:
    """How many tables ended with each level difference, by round (whole-number ticks)."""
    fig = go.Figure()
    for (round_no,), rows in frame.sort("round").group_by("round", maintain_order=True):
        fig.add_trace(
            go.Histogram(
                x=rows["level_diff"].to_list(),
                name=str(round_no),
                legendgroup=str(round_no),
                nbinsx=14,
                hovertemplate=f"round={round_no}<br>level_diff=%{{x}}<br>"
                "count=%{y}<extra></extra>",
            )
        )
    fig.update_xaxes(dtick=1, title="级差 level difference")
    tallest = frame.group_by("level_diff").len()["len"].max() if frame.height else 1
    fig.update_yaxes(
        title=count_label, tickformat="d", rangemode="tozero", dtick=max(1, -(-(tallest or 1) // 8))
    )  # whole tables, at most ~8 ticks
    fig.update_layout(
        title=title, height=320, bargap=0.1, barmode="relative", legend_title_text="轮 round"
    )
    return fig
