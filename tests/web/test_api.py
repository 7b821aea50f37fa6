"""The web UI's JSON API against a real arena: the same numbers as the store, clear errors, nothing writable."""

from __future__ import annotations

import http.client
import json
import math
import statistics
import time
import urllib.error
import urllib.parse
import urllib.request
from itertools import combinations, pairwise

import pytest

from arena.games import game_names
from arena.stats import t_quantile
from tests.web.conftest import ENTRANTS, TOURNAMENT, WebArena, hold_live_match


def test_the_leaderboard_shows_the_stored_ratings_best_first(web_arena: WebArena) -> None:
    status, board = web_arena.get("/api/leaderboards/friday13")
    stored = web_arena.run(lambda: web_arena.arena.server.ratings.leaderboard("friday13"))  # type: ignore[union-attr]
    assert status == 200 and board["game"] == "friday13"
    assert [(row["rank"], row["bot"], row["mu"], row["sigma"], row["games"]) for row in board["rows"]] == [
        (row.rank, row.bot, row.mu, row.sigma, row.games) for row in stored
    ]
    assert set(ENTRANTS) <= {row["bot"] for row in board["rows"]}
    conservative = [row["conservative"] for row in board["rows"]]
    assert conservative == sorted(conservative, reverse=True)
    assert all(row["conservative"] == pytest.approx(row["mu"] - 3 * row["sigma"]) for row in board["rows"])


def test_a_bot_page_has_its_owner_kind_rating_history_and_matches(web_arena: WebArena) -> None:
    status, page = web_arena.get("/api/bots/rb1")
    assert status == 200
    assert (page["bot"]["owner"], page["bot"]["kind"], page["bot"]["language"]) == ("olga", "remote", "python")
    history = page["ratings"]["friday13"]["history"]
    assert len(history) == page["ratings"]["friday13"]["games"] >= 3
    assert history[-1]["mu"] == page["ratings"]["friday13"]["mu"]
    assert web_arena.matches["friday13"] in {match["match_id"] for match in page["matches"]}
    status, builtin = web_arena.get("/api/bots/builtin:heuristic")
    assert status == 200 and builtin["bot"]["kind"] == "builtin" and "friday13" in builtin["ratings"]


def test_matches_filter_by_game_bot_and_tournament(web_arena: WebArena) -> None:
    _, by_game = web_arena.get("/api/matches?game=board13")
    assert [match["match_id"] for match in by_game["matches"]] == [web_arena.matches["board13"]]
    _, by_bot = web_arena.get("/api/matches?bot=rb1&game=amigo13")
    assert [match["match_id"] for match in by_bot["matches"]] == [web_arena.matches["amigo13"]]
    _, by_tournament = web_arena.get(f"/api/matches?tournament={TOURNAMENT}&limit=500")
    assert len(by_tournament["matches"]) == 2
    assert all(match["tournament_id"] == TOURNAMENT and not match["running"] for match in by_tournament["matches"])


def test_an_ended_match_has_its_replay_record_and_a_frame_per_move(web_arena: WebArena) -> None:
    for game in game_names():
        match_id = web_arena.matches[game]
        status, shown = web_arena.get(f"/api/matches/{match_id}")
        record = web_arena.replay(match_id)
        assert status == 200 and shown["replay"] == record
        assert len(shown["frames"]) == sum(len(entry["moves"]) + 1 for entry in record["rounds"])
        assert [frame["move"] for frame in shown["frames"] if frame["move"]] == [
            move for entry in record["rounds"] for move in entry["moves"]
        ]


def test_an_ended_matchs_replay_downloads_as_a_file_named_after_it(web_arena: WebArena) -> None:
    for game in game_names():
        match_id = web_arena.matches[game]
        with urllib.request.urlopen(f"{web_arena.url}api/matches/{match_id}/replay", timeout=10) as response:
            assert response.headers["Content-Disposition"] == f"attachment; filename*=UTF-8''{match_id}.json"
            assert json.loads(response.read()) == web_arena.replay(match_id)


def test_a_tournament_shows_progress_and_standings_with_intervals(web_arena: WebArena) -> None:
    status, shown = web_arena.get(f"/api/tournaments/{TOURNAMENT}")
    assert status == 200 and shown["done"] == shown["total"] == 2 and shown["finished_ms"]
    assert sorted(row["bot"] for row in shown["standings"]) == sorted(ENTRANTS)
    assert all(
        row["games"] == row["deals"] == 2 and row["ci95"] is not None and row["mu"] for row in shown["standings"]
    )
    _, listed = web_arena.get("/api/tournaments")
    assert [(t["spec"]["name"], t["done"], t["total"]) for t in listed["tournaments"]] == [(TOURNAMENT, 2, 2)]


def test_a_tournament_pairs_every_two_bots_on_the_deals_both_played(web_arena: WebArena) -> None:
    """Recomputed from the tournament's matches: not duplicate, so every match is a deal of its own."""
    _, shown = web_arena.get(f"/api/tournaments/{TOURNAMENT}")
    _, listed = web_arena.get(f"/api/matches?tournament={TOURNAMENT}")
    deals = [dict(zip(match["seats"], match["scores"], strict=True)) for match in listed["matches"]]
    placed = [row["bot"] for row in shown["standings"]]
    mean = {row["bot"]: row["mean_score"] for row in shown["standings"]}
    assert shown["lower_is_better"]
    assert [(pair["first"], pair["second"]) for pair in shown["head_to_head"]] == list(combinations(placed, 2))
    for pair in shown["head_to_head"]:
        first, second = pair["first"], pair["second"]
        # Fewer penalty points is better: the first's advantage is what the second scored more.
        differences = [deal[second] - deal[first] for deal in deals]
        half_width = t_quantile(0.975, len(deals) - 1) * statistics.stdev(differences) / math.sqrt(len(deals))
        assert pair["deals"] == len(deals) == 2
        assert pair["advantage"] == pytest.approx(statistics.fmean(differences), abs=1e-3)
        assert pair["advantage"] == pytest.approx(mean[second] - mean[first], abs=1e-3)
        assert pair["advantage"] >= 0
        assert pair["ci95"] == pytest.approx(half_width, abs=1e-3)
        assert pair["established"] == (pair["advantage"] > pair["ci95"])
    established = {(pair["first"], pair["second"]): pair["established"] for pair in shown["head_to_head"]}
    assert shown["unsettled"] == [
        [upper, lower] for upper, lower in pairwise(placed) if not established[(upper, lower)]
    ]


@pytest.mark.parametrize(
    ("path", "status", "detail"),
    [
        ("/api/leaderboards/chess", 404, "no game 'chess'; the arena plays amigo13, board13, friday13"),
        ("/api/bots/nobody", 404, "no bot named 'nobody'"),
        ("/api/bots/builtin:genius", 404, "no bot named 'builtin:genius'"),
        ("/api/matches/m999999", 404, "no match 'm999999'"),
        ("/api/tournaments/nope", 404, "no tournament named 'nope'"),
        ("/api/matches?game=chess", 404, "no game 'chess'"),
        ("/api/matches?bot=nobody", 404, "no bot named 'nobody'"),
        ("/api/leaderboards/friday13?limit=0", 422, "query limit: Input should be greater than or equal to 1"),
        ("/api/matches/m999999/replay", 404, "no match 'm999999'; /api/matches lists the matches"),
        ("/api/matches?limit=many", 422, "query limit: Input should be a valid integer"),
        ("/api/matches?game=board13&before=m999999", 404, "no match 'm999999' in this list to page from; start again"),
        ("/api/matches?before=a&after=b", 422, "page with before or after, not both: drop one of them"),
        ("/api/nothing-here", 404, "no API endpoint /api/nothing-here; /api/openapi.json lists them"),
    ],
)
def test_bad_requests_get_a_one_line_detail(web_arena: WebArena, path: str, status: int, detail: str) -> None:
    got, body = web_arena.get(path)
    assert got == status
    assert body["detail"].startswith(detail) and "\n" not in body["detail"]


OWNER_PATHS = {
    "/api/session",
    "/api/session/end",
    "/api/me/bots",
    "/api/me/bots/{name}/token",
    "/api/me/bots/{name}/versions",
    "/api/me/challenges",
}
"""Signing in and out, and what a signed-in owner sees and changes."""


def test_the_api_is_described_and_read_only(web_arena: WebArena) -> None:
    _, spec = web_arena.get("/api/openapi.json")
    assert set(spec["paths"]) == {
        "/api/games",
        "/api/leaderboards",
        "/api/leaderboards/{game}",
        "/api/bots",
        "/api/bots/{name}",
        "/api/matches",
        "/api/matches/{match_id}",
        "/api/matches/{match_id}/replay",
        "/api/matches/{match_id}/stream",
        "/api/tournaments",
        "/api/tournaments/{name}",
        "/api/tournaments/{name}/stream",
        *OWNER_PATHS,
    }
    # Public data is read-only; the changes are a signed-in owner's (tests/web/test_self_service.py).
    assert all(set(methods) == {"get"} for path, methods in spec["paths"].items() if path not in OWNER_PATHS)
    request = urllib.request.Request(web_arena.url + "api/matches", data=b"{}", method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 405


def test_a_running_match_shows_only_its_public_view(web_arena: WebArena) -> None:
    match_id, bot = web_arena.run(lambda: hold_live_match(web_arena.arena))
    request = web_arena.run(lambda: bot.expect("action_request")).action_request
    try:
        # The web reads the moves from Redis, where the node writes them every tenth of a second.
        deadline = time.monotonic() + 10
        while True:
            status, shown = web_arena.get(f"/api/matches/{match_id}")
            if status != 200 or shown.get("live", {}).get("view", {}).get("current_player") == 0:
                break
            assert time.monotonic() < deadline, f"the live view never reached the bot's turn: {shown}"
            time.sleep(0.05)
        assert status == 200 and shown["match"]["running"]
        assert "replay" not in shown and "frames" not in shown
        assert web_arena.get(f"/api/matches/{match_id}/replay") == (
            404,
            {"detail": f"match {match_id} is still running; its replay is stored when it ends"},
        )
        live = shown["live"]
        assert "seed" not in live["record"]
        assert all(key not in entry for entry in live["record"]["rounds"] for key in ("hands", "dummy", "draw_pile"))
        assert live["view"]["kind"] == "cards" and "hand" not in live["view"]
        assert live["view"]["current_player"] == 0 and sum(live["view"]["hand_sizes"]) > 0
    finally:
        web_arena.run(lambda: bot.act(match_id, request.request_id, request.legal_actions[0].id))
        web_arena.run(lambda: bot.play_on(match_id))
        web_arena.run(bot.close)
    web_arena.run(lambda: web_arena.arena.finished(match_id))
    _, ended = web_arena.get(f"/api/matches/{match_id}")
    assert ended["replay"]["seed"] and ended["frames"][0]["hands"][0]


def test_small_responses_on_a_kept_alive_connection_do_not_wait_for_delayed_acks(web_arena: WebArena) -> None:
    """Without TCP_NODELAY each small response would wait about 40 ms for the client's delayed ACK."""
    parts = urllib.parse.urlsplit(web_arena.url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    began = time.perf_counter()
    for _ in range(10):
        connection.request("GET", "/api/games")
        assert connection.getresponse().read()
    connection.close()
    assert time.perf_counter() - began < 0.35


def test_the_home_page_game_is_the_one_with_the_most_rated_play(web_arena: WebArena) -> None:
    status, summary = web_arena.get("/api/leaderboards")
    assert status == 200
    played = {entry["game"]: entry["rated_seats"] for entry in summary["games"]}
    assert set(played) == set(game_names())
    for entry in summary["games"]:
        _, board = web_arena.get(f"/api/leaderboards/{entry['game']}")
        assert entry["rated_seats"] == sum(row["games"] for row in board["rows"])
        assert entry["bots"] == len(board["rows"])
    # The tournament's friday13 matches make it the most played; amigo13, first by name, is not.
    assert summary["game"] == "friday13" == max(played, key=played.__getitem__)
    # The home page draws from this one answer: it carries that game's board, as its own endpoint has it.
    _, board = web_arena.get("/api/leaderboards/friday13")
    assert summary["board"] == board
    _, short = web_arena.get("/api/leaderboards?limit=1")
    assert short["board"]["rows"] == board["rows"][:1]


def test_matches_name_their_winners_and_a_bot_its_rating_change_per_match(web_arena: WebArena) -> None:
    _, listed = web_arena.get("/api/matches?limit=500")
    for match in listed["matches"]:
        assert match["winners"] == [seat for seat, rank in enumerate(match["ranks"]) if rank == 1]
        assert match["winners"], f"{match['match_id']} ended without a winner"
    _, bot = web_arena.get("/api/bots/rb1")
    history = bot["ratings"]["friday13"]["history"]
    start = 25 - 3 * 25 / 3  # TrueSkill's defaults: the rating every bot starts from
    conservative = [start] + [point["mu"] - 3 * point["sigma"] for point in history]
    expected = {point["match_id"]: conservative[i + 1] - conservative[i] for i, point in enumerate(history)}
    shown = {match["match_id"]: match["rating_change"] for match in bot["matches"] if match["game"] == "friday13"}
    assert shown and all(shown[match_id] == pytest.approx(expected[match_id]) for match_id in shown)


def test_a_bots_rivals_count_the_matches_played_together(web_arena: WebArena) -> None:
    _, bot = web_arena.get("/api/bots/rb1")
    _, played = web_arena.get("/api/matches?bot=rb1&limit=500")
    for rival in bot["rivals"]:
        together = [m for m in played["matches"] if rival["opponent"] in m["seats"]]
        ranks = [
            (m["ranks"][m["seats"].index("rb1")], m["ranks"][m["seats"].index(rival["opponent"])]) for m in together
        ]
        assert rival["matches"] == len(together)
        assert rival["wins"] == sum(mine < theirs for mine, theirs in ranks)
        assert rival["losses"] == sum(mine > theirs for mine, theirs in ranks)
        assert rival["mean_rank_difference"] == pytest.approx(statistics.mean(t - m for m, t in ranks))
    assert {rival["opponent"] for rival in bot["rivals"]} == {"builtin:random", "builtin:heuristic"}
    assert "hosted_versions" not in bot


def test_a_hosted_bot_lists_its_versions_with_status(web_arena: WebArena, hosted_bot: str) -> None:
    status, bot = web_arena.get(f"/api/bots/{hosted_bot}")
    assert status == 200 and bot["bot"]["kind"] == "hosted"
    shown = [(v["version"], v["status"], v["active"], v["reason"]) for v in bot["hosted_versions"]]
    assert shown == [(2, "failed", False, "it crashed on its first move"), (1, "ok", True, "")]
    assert all(v["created_ms"] > 0 and "package" not in v for v in bot["hosted_versions"])


def test_a_finished_tournament_names_its_winner_and_each_bots_path(web_arena: WebArena) -> None:
    _, listed = web_arena.get("/api/tournaments")
    _, cup = web_arena.get(f"/api/tournaments/{TOURNAMENT}")
    (entry,) = [t for t in listed["tournaments"] if t["spec"]["name"] == TOURNAMENT]
    assert entry["winner"] == cup["standings"][0]["bot"]
    _, played = web_arena.get(f"/api/matches?tournament={TOURNAMENT}&limit=500")
    assert set(cup["paths"]) == set(ENTRANTS)
    for bot, steps in cup["paths"].items():
        mine = sorted((m for m in played["matches"] if bot in m["seats"]), key=lambda m: m["match_id"])
        assert [step["match_id"] for step in steps] == [m["match_id"] for m in mine]
        for step, match in zip(steps, mine, strict=True):
            seat = match["seats"].index(bot)
            assert (step["seat"], step["score"], step["rank"], step["players"]) == (
                seat,
                match["scores"][seat],
                match["ranks"][seat],
                3,
            )
        assert [step["round"] for step in steps] == [0, 1]
