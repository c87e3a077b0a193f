"""What an official's pages show (/o, /o/table): by role, the latest round's tables of their
own with where each stands (a disagreement of the two sides' reports and a disputed deal
named as such, never 未报), the proposals to rule on, the appeals with the ruling's
context, the rulings the desk may file an appeal against; at a table, both teams' counts,
the records (withdrawable by who made them), the sides' reports and each disputed deal as
recorded. Team names beside numbers, in natural order (A2 before A10)."""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.requests import Request

from dashboard.hall.officials_words import one_language, ruling_word
from dashboard.hall.respond import database, page_lang
from pipeline.base import db, events
from pipeline.officials.ladder import KINDS, RULINGS
from pipeline.officials.ladder import WORDS as KIND_WORDS


def _event_of(con, request: Request) -> str | None:
    wanted = request.query_params.get("event", "")[:64]
    if wanted and events.valid_id(wanted):
        return wanted if db.scalar(con, "select count(*) from events where event_id = ?",
                                   [wanted]) else None
    return events.most_recent(con)


def _names(con, event_id: str) -> dict[str, str]:
    """Each team's number → "number name" (a number alone when the team has no name)."""
    return {no: f"{no} {name}" if name else no for no, name in db.rows(
        con, "select team_no, coalesce(team_name, '') from teams where event_id = ?",
        [event_id])}


def _reports(con, event_id: str, round_no: int) -> dict[int, list[dict]]:
    """Each table's both-sides reports still waiting (a disagreement: two that differ)."""
    from pipeline.base.levels import format_level

    out: dict[int, list[dict]] = {}
    for report_id, table, side, ew, ns in db.rows(
            con, "select report_id, table_no, side, ew_level, ns_level from pending_reports "
                 "where event_id = ? and round = ? and status = 'pending' order by table_no, "
                 "side, report_id", [event_id, round_no]):
        out.setdefault(table, []).append({"id": report_id, "side": side or "",
                                          "said": f"{format_level(ew)} – {format_level(ns)}"})
    return out


def home(request: Request, official, w: dict) -> dict:
    """What the official's own page shows, by role."""
    from pipeline.day import tablestore
    from pipeline.officials import appeals, common, rulings
    from pipeline.pairing.swiss import natural_key
    from pipeline.ranking import rounds

    lang = page_lang(request)
    with db.reading(database()) as con:
        event_id = _event_of(con, request)
        if event_id is None:
            return {"me": official.label}
        event = events.load(con, event_id)
        round_no = rounds.latest_paired_round(con, event_id) or 0
        english = {"lang": "en"} if lang == "en" else {}
        names = _names(con, event_id)
        out = {"me": official.label, "event": event_id, "event_name": event.name,
               "round": round_no, "screen": official.role == "screen",
               "ruling_kinds": [(k, ruling_word(k, lang)) for k in RULINGS],
               "leave_minutes": event.ruleset.officials["leave_minutes"]}
        out["all_teams"] = [(t, names[t]) for t in sorted(names, key=natural_key)]
        if official.role in ("referee", "chief", "organizer") and round_no:
            pairs = db.rows(con, "select table_no, ew_team, ns_team from pairings where "
                                 "event_id = ? and round = ? and table_no is not null order by "
                                 "table_no", [event_id, round_no])
            stored = {r[0] for r in db.rows(con, "select table_no from results where "
                                                 "event_id = ? and round = ?",
                                            [event_id, round_no])}
            playing = {r["table"]: r for r in tablestore.tables_in_play(con, event, round_no)}
            late = {r[0] for r in db.rows(con, "select table_no from official_records where "
                                               "event_id = ? and round = ? and kind = 'late' "
                                               "and withdrawn_at is null",
                                          [event_id, round_no])}
            waiting = _reports(con, event_id, round_no)

            def state(t: int) -> str:
                if t in stored:
                    return w["reported"]
                if playing.get(t, {}).get("disputed"):
                    return w["disputed"]
                if len({r["said"] for r in waiting.get(t, [])}) > 1:
                    return w["disagree"]
                if t in waiting:
                    return w["to_check"]
                return w["in_play"] if t in playing else w["waiting"]

            out["tables"] = [
                {"table": t, "teams": f"{names.get(ew, ew)} – {names.get(ns, ns or '')}",
                 "url": "/o/table?" + urlencode({"event": event_id, "round": round_no,
                                                 "table": t} | english),
                 "state": " · ".join([state(t)] + ([w["late"]] if t in late else []))}
                for t, ew, ns in pairs if official.works_at(t)]
        if official.role in ("chief", "organizer"):
            out["queue"] = [{**p, "said": ruling_word(p["kind"], lang),
                             "team": names.get(p["team_no"], p["team_no"])}
                            for p in rulings.queue(con, event_id)]
        if official.role in ("committee", "organizer", "chief"):
            now = common.now()
            voted = {r[0] for r in db.rows(con, "select appeal_id from official_votes where "
                                                "official_id = ?", [official.official_id])}
            out["appeals"] = [
                {**a, "said": ruling_word(a["kind"], lang),
                 "team": names.get(a["team_no"], a["team_no"]),
                 "ruled": names.get(a["ruled_team"], a["ruled_team"]),
                 "left": w["left"].format(m=max(0, -(-int((a["answer_by"] - now)
                                                          .total_seconds()) // 60)))
                 if a["answer_by"] > now else w["overdue"],
                 "can_vote": official.role == "committee" and a["appeal_id"] not in voted}
                for a in appeals.open_appeals(con, event)]
        if official.role in ("desk", "organizer"):
            out["desk"] = [{**r, "said": ruling_word(r["kind"], lang),
                            "team": names.get(r["team_no"], r["team_no"])}
                           for r in appeals.confirmed_for_appeal(con, event_id)]
    return out


def table(request: Request, official, w: dict) -> dict:
    from pipeline.day import tablestore
    from pipeline.officials import records

    lang = page_lang(request)
    params = request.query_params
    event_id = params.get("event", "")[:64]
    round_no, table_no = whole(params.get("round", "0")), whole(params.get("table", "0"))
    if not official.works_at(table_no):
        raise PermissionError(w["not_yours"])
    with db.reading(database()) as con:
        event = events.load(con, event_id)
        names = _names(con, event_id)
        counts = records.table_counts(con, event, round_no, table_no)
        disputed = [_deal_shown(con, event_id, round_no, table_no, d, w)
                    for r, t, d in tablestore.disputed(con, event_id)
                    if (r, t) == (round_no, table_no)]
        kept = records.listing(con, event_id, round_no, table_no)
        reports = _reports(con, event_id, round_no).get(table_no, [])
    for c in counts:
        c["name"] = names.get(c["team"], c["team"])
    for r in kept:
        r["said"] = one_language(KIND_WORDS.get(r["kind"], r["kind"]), lang)
        r["name"] = names.get(r["team_no"], r["team_no"])
        r["mine"] = r["official_id"] == official.official_id or official.role in (
            "chief", "organizer")
    sides = {"ew": w["ew"], "ns": w["ns"], "": w["table"]}
    for r in reports:
        r["side_said"] = w["side_said"].format(side=sides.get(r["side"], r["side"]),
                                               said=r["said"])
    return {"me": official.label, "event": event_id, "event_name": event.name,
            "round": round_no, "table": {"no": table_no, "counts": counts,
                                         "teams": [(c["team"], c["name"]) for c in counts],
                                         "disputed": disputed, "records": kept,
                                         "reports": reports,
                                         "disagree": len({r["said"] for r in reports}) > 1},
            "kinds": [(k, one_language(KIND_WORDS[k], lang)) for k in (*KINDS, "late")],
            "ruling_kinds": [(k, ruling_word(k, lang)) for k in RULINGS]}


def whole(text: str) -> int:
    """A whole number from a link or a form (ValueError with the right words otherwise)."""
    text = text.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 6:
        raise ValueError(f"不是有效的整数 not a whole number: {text[:20]}")
    return int(text)


def _deal_shown(con, event_id: str, round_no: int, table_no: int, deal: int, w: dict) -> dict:
    """A disputed deal as recorded: who won it, the partner's place, who entered and who
    disputed it."""
    found = db.rows(con, "select winner_side, partner_finish, entered_side, answered_side "
                         "from table_sheet_deals where event_id = ? and round = ? and "
                         "table_no = ? and deal = ?", [event_id, round_no, table_no, deal])
    if not found:
        return {"deal": deal, "said": ""}
    winner, finish, entered, answered = found[0]
    sides = {"ew": w["ew"], "ns": w["ns"]}
    places = {2: w["second"], 3: w["third"], 4: w["last"]}
    return {"deal": deal, "said": w["deal_recorded"].format(
        winner=sides.get(winner, winner), place=places.get(finish, finish),
        entered=sides.get(entered, entered), answered=sides.get(answered, answered or ""))}
