"""The card engines and their bots play exactly as they did when these digests were taken.

Each digest is the SHA-256 of replay files exactly as `arena play --replays` writes them (every
deal, move, pile total, taken card, penalty and rank), or of the replay of a match in which the
mc bot plays a seat. They were taken from the pure-Python engine before it was ever compiled; the
compiled engine, and any later speed-up, must give the very same bytes. A rule change that is
meant changes them on purpose, in its own commit.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from arena.bots import make_bot
from arena.bots.base import StaticTurn
from arena.bots.montecarlo import MonteCarloBot
from arena.games import make_game
from arena.match.local import play_matches, schedule


def replay_digest(game_name: str, params: dict[str, str], bots: list[str], seatings: int, tmp: Path) -> str:
    """`arena play GAME --bots BOTS --duplicate --seatings S --games 2*S --seed pinned --replays TMP`."""
    game = make_game(game_name, players=len(bots), **params)
    play_matches(game, schedule(bots, 2 * seatings, duplicate=True, seatings=seatings), "pinned", replays=tmp)
    digest = hashlib.sha256()
    for path in sorted(tmp.glob("*.json")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


REPLAYS: list[tuple[str, dict[str, str], list[str], int, str]] = [
    ("friday13", {}, ["random"] * 4, 24, "ae793cc0c9cf976e1ba65692b9224dec4b1fb24a6c53894d9194d673ddecc471"),
    (
        "friday13",
        {"edition": "de"},
        ["heuristic", "random", "random"],
        6,
        "f4cdebc832d5d83d15343dc8f1818fc7f3b020930d1f74d7767c6b864d7e7538",
    ),
    (
        "friday13",
        {},
        ["heuristic", "random", "heuristic", "random", "random"],
        5,
        "5585424875839b1169e5d9bb68e24bd83c72914907876cf50c674bf7bc96435b",
    ),
    (
        "friday13",
        {"edition": "de"},
        ["random"] * 6,
        6,
        "d0c34f8bc5dcbb1099f6237784c55ce83d6eaf221e0d8345e3ab67d134b78f7c",
    ),
    (
        "amigo13",
        {},
        ["random", "heuristic", "random"],
        6,
        "401b6ad0df7a7a01df13623700c45e6360707c6455150615322f6f0e87b594e4",
    ),
    (
        "amigo13",
        {},
        ["heuristic", "random", "random", "heuristic"],
        12,
        "41bc9ace2161778cb22ec37b25251bb90a793ff745771684ff3a2eae6acf0122",
    ),
    ("amigo13", {}, ["random"] * 6, 6, "801a2ccac2ed641b87733864d724a4786ea09f56da21f17427375aff02e30021"),
]
"""Series of `replay_digest`, each with the digest it gives."""


@pytest.mark.parametrize(("game_name", "params", "bots", "seatings", "expected"), REPLAYS)
def test_arena_play_writes_the_same_replay_bytes(
    game_name: str, params: dict[str, str], bots: list[str], seatings: int, expected: str, tmp_path: Path
) -> None:
    assert replay_digest(game_name, params, bots, seatings, tmp_path) == expected


def mc_match_digest(game_name: str, players: int, seed: bytes, samples: int) -> str:
    """The digest of the replay of one match: mc in seat 0 at `samples` playouts a move (with a time
    limit it never reaches, so the budget alone bounds it), heuristic and random bots around it."""
    game = make_game(game_name, players=players)
    names = ["mc", *("heuristic" if seat % 2 else "random" for seat in range(1, players))]
    others = [make_bot(name, game, seat, seed=seat) for seat, name in enumerate(names) if seat]
    bots = [MonteCarloBot(game, 0, seed=7, samples=samples, time_limit=600.0), *others]
    state = game.new_match(seed)
    while not state.is_terminal():
        seat = state.current_player()
        turn = StaticTurn(seat, state.legal_actions(), state.observation(seat))
        state.apply(bots[seat].act(turn))
    return hashlib.sha256((json.dumps(state.record(names), indent=1) + "\n").encode()).hexdigest()


MC_MATCHES: list[tuple[str, int, bytes, str]] = [
    ("friday13", 4, b"mc-pinned-1", "2268395988f255b261471458d053deb97ca9d5f707b6a385e95f1081946ed63e"),
    ("friday13", 3, b"mc-pinned-2", "ed0da96fb3e11c79c5fb51d1b8859d6230d87f081df0bec0bc5eb7157a73c1e2"),
    ("amigo13", 4, b"mc-pinned-3", "b6ae013b2536796220f73a087099a95efd2f92fa2ef59ccdc8af17e8a1e3aa4c"),
]
"""Matches of `mc_match_digest` at 60 playouts a move, each with its digest."""


@pytest.mark.parametrize(("game_name", "players", "seed", "expected"), MC_MATCHES)
def test_mc_makes_the_same_moves_for_its_seed_and_budget(
    game_name: str, players: int, seed: bytes, expected: str
) -> None:
    assert mc_match_digest(game_name, players, seed, 60) == expected
