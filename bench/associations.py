"""An association's league as hard as real ones (issue 52): who is who, and how well the rating
list orders players, fed one `import-event` at a time (the function the CLI calls).

Each league (its own seed): PLAYERS players with hidden strengths in CLUBS clubs, in lasting
partnerships (a pair plays together most events; now and then a player stands in for an
absent partner); CROSS_CLUB of the pairs are of two clubs and register under either club
(each event by lot: the player then sits under the partner's club); MOVERS change club once
(half keep their partner); NAMESAKES_ACROSS pairs share a name across two clubs and
NAMESAKES_WITHIN pairs within one club; MEMBERS of the players give a member id on most
registrations, TYPOS of those with a digit mistyped; WRONG_IDS registrations give another
member's id under a player's own name (the member absent from that event). Each event is
written as an association's sheets (entries with 会员号, results) and imported.

Measured against the people who really played: identities ÷ people, people split (a person
whose seats are on more than one id), ids holding two people (seats of two people; from a
member id: the id is a member id), movers whole, namesake pairs apart (in and across clubs;
each person read as the id holding most of their seats), and the Spearman ρ of the list
with the hidden strengths beside Elo with the margin, OpenSkill and a batch least-squares fit
of the true people; the Brier score of the list's win probability for later tables (fitted
on the first events) against Elo's.
"""

from __future__ import annotations

import csv
import datetime as dt
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

from bench.league import _elo, _openskill, play_rounds

PLAYERS, CLUBS, EVENTS, HELD_OUT = 400, 40, 30, 5
CROSS_CLUB = 0.27
MOVERS = 0.10
NAMESAKES_ACROSS, NAMESAKES_WITHIN = 12, 6
MEMBERS, TYPOS, WRONG_IDS = 0.3, 0.03, 3
STAND_IN = 0.08  # a player plays with another partner this often
ACTIVITY = (0.1, 0.55)  # each player's share of the events played, evenly spread
SEEDS = (11, 12, 13, 14)  # 13, 14 added for issue 52's third pass
ENTRY = ["队号", "队名", "队员1", "会员号1", "队员2", "会员号2", "单位"]
RESULTS = ["轮次", "桌号", "东西队号", "南北队号", "东西级数", "南北级数"]
SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚"
GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华建国玉兰文斌志红海波辉鹏飞宇浩凯"


def simulate(seed: int) -> dict:
    rng = random.Random(seed)
    people = [f"p{i:03d}" for i in range(PLAYERS)]
    names: set[str] = set()
    name = {}
    for p in people:  # unique names to begin with (three characters)
        while True:
            n = rng.choice(SURNAMES) + rng.choice(GIVEN) + rng.choice(GIVEN)
            if n not in names:
                names.add(n)
                name[p] = n
                break
    club = {p: f"俱乐部{rng.randrange(CLUBS)}" for p in people}
    strength = {p: rng.gauss(0, 1) for p in people}
    # partnerships: mostly one club, CROSS_CLUB of them two
    order = rng.sample(people, PLAYERS)
    partner: dict[str, str] = {}
    by_club: dict[str, list[str]] = {}
    for p in order:
        by_club.setdefault(club[p], []).append(p)
    loose = []
    for members in by_club.values():
        while len(members) >= 2:
            a, b = members.pop(), members.pop()
            if rng.random() < CROSS_CLUB * 0.4:  # stand-ins and movers make the rest
                loose += [a, b]
            else:
                partner[a], partner[b] = b, a
        loose += members
    rng.shuffle(loose)
    for a, b in zip(loose[::2], loose[1::2], strict=False):
        partner[a], partner[b] = b, a
    people = [p for p in people if p in partner]

    # namesakes: across clubs and within one
    across, within = set(), set()
    free = [p for p in rng.sample(people, len(people))]
    for _ in range(NAMESAKES_ACROSS):
        a = free.pop()
        b = next(x for x in free if club[x] != club[a] and partner[x] != a)
        free.remove(b)
        name[b] = name[a]
        across.add((a, b))
    for _ in range(NAMESAKES_WITHIN):
        a = free.pop()
        same = [x for x in free if club[x] == club[a] and partner[x] != a]
        if not same:
            continue
        b = same[0]
        free.remove(b)
        name[b] = name[a]
        within.add((a, b))
    named = {p for pair in across | within for p in pair}
    movers = {p: rng.randrange(5, EVENTS - 5) for p in people
              if p not in named and rng.random() < MOVERS}
    member = {p: f"M{seed}{i:04d}" for i, p in enumerate(people) if rng.random() < MEMBERS}
    known = set(member.values())
    activity = {p: rng.uniform(*ACTIVITY) for p in people}  # some play nearly every event
    teams, results = [], []
    wrong = 0
    start = dt.date(2024, 1, 6)
    for e in range(EVENTS):
        event_id = f"h{seed}-{e:02d}"
        day = start + dt.timedelta(days=14 * e)
        for p, when in movers.items():
            if when == e:
                club[p] = f"俱乐部{(int(club[p][3:]) + 1 + rng.randrange(CLUBS - 1)) % CLUBS}"
                if rng.random() < 0.5 and partner[p] in partner:  # a new partner at the club
                    others = [x for x in people if club[x] == club[p] and x != p
                              and partner[x] != p and x not in named]
                    if others:
                        q = rng.choice(others)
                        old_p, old_q = partner[p], partner[q]
                        partner[p], partner[q] = q, p
                        partner[old_p], partner[old_q] = old_q, old_p
        playing = [(a, b) for a, b in pairs_now(partner)
                   if rng.random() < (activity[a] + activity[b]) / 2]
        playing = playing[:len(playing) // 2 * 2]
        seated = []
        absent = []
        for a, b in playing:
            if rng.random() < STAND_IN:
                absent.append(b)
                seated.append([a, None])
            else:
                seated.append([a, b])
        stand_ins = [p for p in people if p not in {x for t in seated for x in t}]
        rng.shuffle(stand_ins)
        for team in seated:
            if team[1] is None:
                team[1] = stand_ins.pop()
        # a team's unit: one club, or by lot either partner's
        in_event = {x for t in seated for x in t}
        for t, (a, b) in enumerate(seated, start=1):
            if rng.random() < 0.5:
                a, b = b, a
            unit = club[a] if club[a] == club[b] or rng.random() < 0.5 else club[b]
            row = {"event_id": event_id, "date": day, "team_no": f"A{t}", "who1": a,
                   "who2": b, "unit": unit, "clubs": (club[a], club[b])}
            for s, p in ((1, a), (2, b)):
                given = member.get(p) if rng.random() < 0.85 else None
                if given and rng.random() < TYPOS:
                    digit = rng.randrange(len(given) - 3, len(given))
                    typo = given[:digit] + str((int(given[digit]) + 1) % 10) + given[digit + 1:]
                    given = given if typo in known else typo  # a typo, never another's id
                row[f"name{s}"], row[f"member{s}"] = name[p], given
            teams.append(row)
        if wrong < WRONG_IDS and e >= 8:  # another member's id under a player's own name
            absent_members = [p for p in member if p not in in_event]
            row = rng.choice([r for r in teams if r["event_id"] == event_id])
            if absent_members and row["who1"] not in member:
                row["member1"] = member[rng.choice(absent_members)]
                row["wrong1"] = True
                wrong += 1
        results += play_rounds(rng, event_id, day, [tuple(t) for t in seated], strength)
    return {"strength": strength, "name": name, "club": club, "teams": teams,
            "results": results, "across": across, "within": within, "movers": set(movers),
            "member": member}


def pairs_now(partner: dict[str, str]) -> list[tuple[str, str]]:
    return sorted({tuple(sorted((p, q))) for p, q in partner.items()})


def write_event(folder: Path, rows: list[dict], results: list[dict]) -> Path:
    folder.mkdir(parents=True)
    with (folder / "entries.csv").open("w", encoding="utf-8", newline="") as f:
        out = csv.writer(f)
        out.writerow(ENTRY)
        for r in rows:
            out.writerow([r["team_no"], f"队{r['team_no']}", r["name1"], r["member1"] or "",
                          r["name2"], r["member2"] or "", r["unit"]])
    with (folder / "results.csv").open("w", encoding="utf-8", newline="") as f:
        out = csv.writer(f)
        out.writerow(RESULTS)
        for r in results:
            out.writerow([r["round"], r["table_no"], r["ew_team"], r["ns_team"], r["ew_level"],
                          r["ns_level"]])
    return folder


def feed(database: Path, league: dict, folder: Path, order: list[str] | None = None) -> list:
    """Every event imported one at a time (in `order`, else by date); the seconds each,
    wall and CPU (this process's, DuckDB's threads included)."""
    from pipeline.intake.ingest import import_event

    took = []
    events = sorted({t["event_id"] for t in league["teams"]})
    for event_id in order or events:
        rows = [t for t in league["teams"] if t["event_id"] == event_id]
        played = [r for r in league["results"] if r["event_id"] == event_id]
        sheets = write_event(folder / event_id, rows, played)
        started, cpu = time.perf_counter(), time.process_time()
        import_event(database, event_id, event_id, "suzhou-2025", rows[0]["date"].isoformat(),
                     sheets)
        took.append((time.perf_counter() - started, time.process_time() - cpu))
    return took


def identities(database: Path, league: dict) -> dict:
    from pipeline.base import db
    truth = {(t["event_id"], t["team_no"], s): t[f"who{s}"] for t in league["teams"]
             for s in (1, 2)}
    with db.reading(database) as con:
        final = {(e, t, s): p for e, t, s, p in db.rows(
            con, "select event_id, team_no, slot, player_id from player_map")}
        review = db.rows(con, "select event_id, team_no, slot, note from player_map "
                              "where note is not null")
    held: dict[str, dict[str, int]] = {}
    ids_of: dict[str, set[str]] = {}
    for seat, player_id in final.items():
        counts = held.setdefault(player_id, {})
        counts[truth[seat]] = counts.get(truth[seat], 0) + 1
        ids_of.setdefault(truth[seat], set()).add(player_id)
    main = {}
    for player_id, counts in held.items():
        for who, n in counts.items():
            if n > main.get(who, (None, 0))[1]:
                main[who] = (player_id, n)
    persons = set(ids_of)
    two = [i for i, c in held.items() if len(c) > 1]
    member_ids = set(league["member"].values())
    wrong_seats = {(t["event_id"], t["team_no"], 1) for t in league["teams"] if t.get("wrong1")}
    return {
        "persons": len(persons), "ids": len(held),
        "split": sum(1 for p in persons if len(ids_of[p]) > 1),
        "two": len(two), "two_member": sum(1 for i in two if i in member_ids),
        "movers": len(league["movers"] & persons),
        "whole": sum(1 for p in league["movers"] if p in ids_of and len(ids_of[p]) == 1),
        "across": len(league["across"]),
        "across_apart": sum(1 for a, b in league["across"] if main[a][0] != main[b][0]),
        "within": len(league["within"]),
        "within_apart": sum(1 for a, b in league["within"] if main[a][0] != main[b][0]),
        "wrong": len(wrong_seats),
        "wrong_joined": sum(1 for s in wrong_seats if final[s] in member_ids),
        "wrong_flagged": sum(1 for e, t, s, n in review if (e, t, s) in wrong_seats),
        "seats": len(final),
        "right": sum(1 for s, p in final.items() if main[truth[s]][0] == p),
        "held": held,
    }


def batch_least_squares(games: list[tuple], ridge: float = 2.0) -> dict[str, float]:
    """The margins fitted at once: margin ≈ Σ r_EW − Σ r_NS, ridge, equal weights."""
    players = sorted({p for g in games for side in (g[2], g[3]) for p in side})
    index = {p: i for i, p in enumerate(players)}
    x = np.zeros((len(games), len(players)))
    y = np.zeros(len(games))
    for n, (_, _, ew, ns, diff) in enumerate(games):
        for p in ew:
            x[n, index[p]] += 1
        for p in ns:
            x[n, index[p]] -= 1
        y[n] = max(-6, min(6, diff))
    fit = np.linalg.solve(x.T @ x + ridge * np.eye(len(players)), x.T @ y)
    return dict(zip(players, fit.tolist(), strict=True))


def _games(league: dict) -> list[tuple]:
    who = {(t["event_id"], t["team_no"]): [t["who1"], t["who2"]] for t in league["teams"]}
    return [(r["date"], r["event_id"], who[(r["event_id"], r["ew_team"])],
             who[(r["event_id"], r["ns_team"])], r["ew_level"] - r["ns_level"])
            for r in league["results"]]


def _spearman(scores: dict[str, float], truth: dict[str, float]) -> float:
    people = [p for p in truth if p in scores]
    frame = pl.DataFrame({"a": [scores[p] for p in people], "b": [truth[p] for p in people]})
    return frame.select(pl.corr("a", "b", method="spearman")).item()


def _brier(probability, games: list[tuple]) -> float:
    scores = [(probability(ew, ns) - (1.0 if diff > 0 else 0.0)) ** 2
              for _, _, ew, ns, diff in games if diff != 0]
    return statistics.fmean(scores)


def _elo_probability(rating: dict[str, float]):
    def p(ew, ns):
        a = sum(rating.get(x, 1500.0) for x in ew) / len(ew)
        b = sum(rating.get(x, 1500.0) for x in ns) / len(ns)
        return 1 / (1 + 10 ** ((b - a) / 400))
    return p


def one_league(seed: int) -> dict:
    from pipeline.base import db
    from pipeline.history import ratings

    league = simulate(seed)
    games = _games(league)
    events = sorted({g[1] for g in games})
    cut = events[EVENTS - HELD_OUT]
    early = [g for g in games if g[1] < cut]
    late = [g for g in games if g[1] >= cut]
    with tempfile.TemporaryDirectory() as scratch:
        database = Path(scratch) / "association.duckdb"
        took = feed(database, league, Path(scratch) / "sheets")
        found = identities(database, league)
        with db.reading(database) as con:
            board = dict(ratings.leaderboard(con).select("player_id", "rating").iter_rows())
            day = max(g[0] for g in early)
            early_board = dict(ratings.leaderboard(con, as_of=day).select(
                "player_id", "rating").iter_rows())
            final = {(e, t, s): p for e, t, s, p in db.rows(
                con, "select event_id, team_no, slot, player_id from player_map")}
    held = found.pop("held")
    read = {max(c, key=c.get): board[i] for i, c in held.items() if i in board}
    truth = league["strength"]
    found["rho"] = _spearman(read, truth)
    found["rho_elo"] = _spearman(_elo(games, True), truth)
    found["rho_openskill"] = _spearman(_openskill(games), truth)
    found["rho_lsq"] = _spearman(batch_least_squares(games), truth)
    # win probability from the list fitted on the early events, for the later tables
    seat_id = {(t["event_id"], t["team_no"]): [final[(t["event_id"], t["team_no"], 1)],
                                                final[(t["event_id"], t["team_no"], 2)]]
               for t in league["teams"]}
    late_ids = [(g[0], g[1], seat_id[(g[1], r["ew_team"])], seat_id[(g[1], r["ns_team"])], g[4])
                for g, r in zip(games, league["results"], strict=True) if g[1] >= cut]
    found["brier"] = _brier(lambda ew, ns: win_probability(
        [early_board.get(x) for x in ew], [early_board.get(x) for x in ns]), late_ids)
    found["brier_elo"] = _brier(_elo_probability(_elo(early, True)), late)
    found["import"] = statistics.median(w for w, _ in took)
    found["import_cpu"] = statistics.median(c for _, c in took)
    found["import_max"] = max(w for w, _ in took)
    return found


def orders(seed: int) -> tuple[int, int]:
    """(seats whose id differs, seats) between the league imported by date and in a
    shuffled order."""
    from pipeline.base import db

    league = simulate(seed)
    events = sorted({t["event_id"] for t in league["teams"]})
    shuffled = random.Random(seed).sample(events, len(events))
    shown = []
    with tempfile.TemporaryDirectory() as scratch:
        for n, order in enumerate((events, shuffled)):
            database = Path(scratch) / f"{n}.duckdb"
            feed(database, league, Path(scratch) / f"sheets{n}", order)
            with db.reading(database) as con:
                shown.append(dict(((e, t, s), p) for e, t, s, p in db.rows(
                    con, "select event_id, team_no, slot, player_id from player_map")))
    return sum(1 for k, v in shown[0].items() if shown[1][k] != v), len(shown[0])


def win_probability(ew: list, ns: list) -> float:
    from pipeline.history.chances import win_probability as from_list
    return from_list(ew, ns)


def run() -> list[dict]:
    load = os.getloadavg()
    leagues = [one_league(seed) for seed in SEEDS]
    other, seats = orders(SEEDS[0])
    t = {k: sum(r[k] for r in leagues) for k in leagues[0] if isinstance(leagues[0][k], int)}
    mean = {k: statistics.fmean(r[k] for r in leagues) for k in leagues[0]
            if isinstance(leagues[0][k], float)}
    each = "; ".join(f"seed {s}: {r['ids']} ids / {r['persons']} people, {r['split']} split, "
                     f"{r['two']} ids holding two, {r['whole']}/{r['movers']} movers whole, "
                     f"namesakes apart {r['across_apart']}/{r['across']} across, "
                     f"{r['within_apart']}/{r['within']} within"
                     for s, r in zip(SEEDS, leagues, strict=True))
    league = (f"{len(SEEDS)} leagues of {PLAYERS} players, {EVENTS} events, lasting "
              f"partnerships, {CROSS_CLUB:.0%} of pairs of two clubs, {MOVERS:.0%} movers, "
              f"{NAMESAKES_ACROSS} + {NAMESAKES_WITHIN} namesake pairs, member ids with typos, "
              f"{WRONG_IDS} wrong ids a league; imported one event at a time")
    return [
        {"case": "associations: ids ÷ people (%)", "seconds": 100 * t["ids"] / t["persons"],
         "note": f"not a time: {t['ids']} ids for {t['persons']} people ({league}); {each}"},
        {"case": "associations: people split (%)", "seconds": 100 * t["split"] / t["persons"],
         "note": f"not a time: {t['split']} people whose seats are on more than one id"},
        {"case": "associations: ids holding two people", "seconds": float(t["two"]),
         "note": f"not a time: {t['two_member']} of them a member id; wrong member ids: "
                 f"{t['wrong_joined']} of {t['wrong']} joined to the member, "
                 f"{t['wrong_flagged']} marked for review"},
        {"case": "associations: seats on their person's id (%)",
         "seconds": 100 * t["right"] / t["seats"],
         "note": f"not a time: {t['right']:,} of {t['seats']:,} seats"},
        {"case": "associations: movers whole (%)",
         "seconds": 100 * t["whole"] / max(t["movers"], 1),
         "note": f"not a time: {t['whole']} of {t['movers']}"},
        {"case": "associations: namesake pairs apart, across clubs (%)",
         "seconds": 100 * t["across_apart"] / max(t["across"], 1),
         "note": f"not a time: {t['across_apart']} of {t['across']}"},
        {"case": "associations: namesake pairs apart, within a club (%)",
         "seconds": 100 * t["within_apart"] / max(t["within"], 1),
         "note": f"not a time: {t['within_apart']} of {t['within']}"},
        {"case": "associations: Spearman of the list with the hidden strengths",
         "seconds": mean["rho"],
         "note": f"not a time: Elo with the margin {mean['rho_elo']:.3f}, OpenSkill "
                 f"{mean['rho_openskill']:.3f}, batch least squares (true people) "
                 f"{mean['rho_lsq']:.3f}"},
        {"case": "associations: Brier of the list's win probability, held-out tables",
         "seconds": mean["brier"],
         "note": f"not a time: Elo with the margin {mean['brier_elo']:.3f}; fitted on the first "
                 f"{EVENTS - HELD_OUT} events, the last {HELD_OUT} predicted"},
        {"case": "associations: seats whose id differs in another import order (%)",
         "seconds": 100 * other / seats,
         "note": f"not a time: {other:,} of {seats:,} seats (seed {SEEDS[0]} imported by "
                 "date and in a shuffled order)"},
        {"case": "associations: import-event of one event (median)", "seconds": mean["import"],
         "note": f"CPU {mean['import_cpu']:.2f} s (median); slowest "
                 f"{max(r['import_max'] for r in leagues):.2f} s; load average "
                 f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the start"},
    ]


if __name__ == "__main__":
    for row in run():
        print(f"{row['case']}: {row['seconds']:.3f} — {row['note']}")
