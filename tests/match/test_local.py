"""Local play's fast path gives the same matches as the match runner, and keeps only results."""

from __future__ import annotations

import asyncio
import json
import random
from functools import partial
from pathlib import Path

import pytest

from arena.games import make_game
from arena.games.base import Game
from arena.games.cards import ACTIONS_OF, CardGame
from arena.match import BotSeat, MatchResult, MatchRunner
from arena.match.local import Pairing, PlayedMatch, builtin_bot, match_seed, play_matches, play_series, schedule
from arena.standings import Played, standings

COPIES = {"h1": "heuristic", "h2": "heuristic", "r1": "random", "r2": "random"}


def by_runner(game: Game, pairings: list[Pairing], seed: str) -> list[MatchResult]:
    """The same series through the general runner, each seat a `BotSeat`."""

    async def series() -> list[MatchResult]:
        results = []
        for pairing in pairings:
            seats = [BotSeat(name, partial(builtin_bot, COPIES[name], pairing.number)) for name in pairing.seats]
            runner = MatchRunner(game, seats, match_seed(seed, pairing.deal), match_id=f"{seed}-{pairing.number}")
            results.append(await runner.run())
        return results

    return asyncio.run(series())


@pytest.mark.parametrize(
    ("game_name", "players", "bots", "games"),
    [
        ("friday13", 4, ["h1", "r1", "h2", "r2"], 48),
        ("friday13", 3, ["h1", "r1", "r2"], 12),
        ("amigo13", 3, ["r1", "h1", "r2"], 12),
        ("board13", 2, ["r1", "h1"], 4),
    ],
)
def test_the_fast_path_plays_the_same_matches_and_standings_as_the_runner(
    game_name: str, players: int, bots: list[str], games: int
) -> None:
    game = make_game(game_name, players=players)
    pairings = list(schedule(bots, games, duplicate=True))
    fast = play_matches(game, pairings, "same", policy=COPIES.__getitem__)
    general = by_runner(game, pairings, "same")
    for mine, theirs in zip(fast, general, strict=True):
        assert (mine.match_id, mine.game, mine.seats) == (theirs.match_id, theirs.game, theirs.seats)
        assert (mine.scores, mine.ranks, mine.termination) == (theirs.scores, theirs.ranks, theirs.termination)
        assert mine.forfeited == theirs.forfeited == ()
    assert len({result.scores for result in fast}) > 1, "the deals differ"

    def table(played: list[Played]) -> list[dict[str, object]]:
        return [row.to_dict() for row in standings(played, lower_is_better=game.lower_is_better)]

    deals = [pairing.deal for pairing in pairings]
    assert table([Played(r.seats, r.scores, r.ranks, d) for r, d in zip(fast, deals, strict=True)]) == table(
        [Played(r.seats, r.scores, r.ranks, d) for r, d in zip(general, deals, strict=True)]
    )


def test_replays_from_the_fast_path_equal_the_runners_records(tmp_path: Path) -> None:
    game = make_game("amigo13", players=3)
    pairings = list(schedule(["r1", "h1", "r2"], 6, duplicate=True))
    results = play_matches(game, pairings, "rec", replays=tmp_path, policy=COPIES.__getitem__)
    general = by_runner(game, pairings, "rec")
    for result, theirs in zip(results, general, strict=True):
        number = int(result.match_id.rsplit("-", 1)[1])
        written = json.loads((tmp_path / f"amigo13-{number:05d}.json").read_text())
        assert written == json.loads(json.dumps(theirs.record))
        assert game.replay(written).outcome().scores == result.scores


def test_a_played_match_keeps_scores_and_ranks_not_the_final_state() -> None:
    game = make_game("friday13", players=4)
    seen: list[PlayedMatch] = []
    results = play_matches(game, schedule(["random"] * 4, 3, duplicate=False), "slim", on_result=seen.append)
    assert seen == results
    assert not hasattr(results[0], "state") and not hasattr(results[0], "__dict__")
    assert sorted(results[0].ranks)[0] == 1


def test_play_series_gives_the_runners_results_with_state_and_seat_records() -> None:
    game = make_game("friday13", players=3)
    pairings = list(schedule(["h1", "r1", "r2"], 6, duplicate=True))
    results = asyncio.run(play_series(game, pairings, "full", policy=COPIES.__getitem__))
    general = by_runner(game, pairings, "full")
    for mine, theirs in zip(results, general, strict=True):
        assert (mine.scores, mine.ranks, mine.termination) == (theirs.scores, theirs.ranks, theirs.termination)
        assert mine.seat_records == theirs.seat_records
        assert mine.record == theirs.record


@pytest.mark.parametrize(("game_name", "players"), [("friday13", 3), ("friday13", 4), ("amigo13", 4), ("amigo13", 6)])
def test_the_card_engines_legal_actions_kept_between_moves_are_those_of_the_hand(game_name: str, players: int) -> None:
    """Local play asks for the legal actions on every move, so the card engines keep them up to
    date; they must stay exactly the sorted actions of the cards in hand, across clones and playouts."""
    game = make_game(game_name, players=players)
    assert isinstance(game, CardGame)
    rng = random.Random(7)
    for number in range(30):
        state = game.new_match(match_seed("legal", number))
        while not state.is_terminal():
            expected = sorted({action for code in state.hands[state.turn] for action in ACTIONS_OF[code]})
            legal = state.legal_actions()
            assert legal == expected
            legal.clear()
            assert state.legal_actions() == expected, "callers get a list of their own"
            if rng.random() < 0.05:
                twin = state.clone()
                twin.playout(rng, to_round_end=True)
                if not twin.is_terminal():
                    hand = twin.hands[twin.turn]
                    assert twin.legal_actions() == sorted({a for code in hand for a in ACTIONS_OF[code]})
            state.apply(rng.choice(expected))
        assert state.legal_actions() == []
