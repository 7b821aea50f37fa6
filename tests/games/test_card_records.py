"""Determinism, action names, the seed stream and the arena-replay/1 record of the card games."""

from __future__ import annotations

import hashlib
import json
import random
import struct

import pytest

from arena.games import GameError, InvalidActionText, make_game
from arena.games.base import SeedStream, seed_commitment
from arena.games.cards import CardGame

CONTRACT_KEYS = {
    "format",
    "game",
    "params",
    "seats",
    "seed",
    "seed_commitment",
    "rounds",
    "scores",
    "ranks",
    "termination",
}
ROUND_KEYS = {"first_player", "dealer", "hands", "moves", "penalties"}
MOVE_KEYS = {"seat", "card", "pile", "total", "took"}


def card_game(name: str, players: int, **params: str) -> CardGame:
    game = make_game(name, players=players, **params)
    assert isinstance(game, CardGame)
    return game


def play_randomly(game: CardGame, seed: bytes, choices: int = 7) -> dict[str, object]:
    rng = random.Random(choices)
    state = game.new_match(seed)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    return state.record([f"bot{i}" for i in range(game.players)])


def test_the_same_seed_gives_the_same_match() -> None:
    game = card_game("friday13", 4)
    assert play_randomly(game, b"same") == play_randomly(game, b"same")
    first, second = game.new_match(b"one"), game.new_match(b"two")
    assert first.hands != second.hands


def test_the_same_seed_gives_the_same_deals_whatever_is_played() -> None:
    game = card_game("amigo13", 3)
    one = play_randomly(game, b"deal", choices=1)
    two = play_randomly(game, b"deal", choices=2)
    assert one["rounds"] != two["rounds"]
    for first, second in zip(one["rounds"], two["rounds"], strict=True):  # type: ignore[call-overload]
        for key in ("hands", "draw_pile", "first_player", "dealer"):
            assert first[key] == second[key]


@pytest.mark.parametrize(
    ("name", "params"), [("friday13", {"edition": "en"}), ("friday13", {"edition": "de"}), ("amigo13", {})]
)
def test_every_action_text_round_trips(name: str, params: dict[str, str]) -> None:
    game = card_game(name, 4, **params)
    actions = game.all_actions()
    assert len(actions) == len(set(actions))
    for action in actions:
        assert game.action_from_text(game.action_text(action)) == action


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("cat", "is not a card"),
        ("dog:5", "is not a card"),
        ("cat:3", "is not a card of friday13"),
        ("cat:0", "is not a card of friday13"),
        ("cat:9", "is not a card of friday13"),
        ("friday:4", "name the pile"),
        ("friday:4>friday", "name the pile"),
        ("cat:5>mirror", "goes only on its own pile"),
    ],
)
def test_bad_action_text_says_what_to_write(text: str, complaint: str) -> None:
    game = card_game("friday13", 4)
    with pytest.raises(InvalidActionText, match=complaint):
        game.action_from_text(text)


def test_the_german_edition_has_zeros() -> None:
    game = card_game("friday13", 4, edition="de")
    assert game.action_text(game.action_from_text("cat:0")) == "cat:0"
    assert len(game.rules.deck) == 53


@pytest.mark.parametrize(("name", "players"), [("friday13", 3), ("friday13", 4), ("amigo13", 3), ("amigo13", 6)])
def test_the_replay_record_keeps_the_contract(name: str, players: int) -> None:
    game = card_game(name, players)
    record = play_randomly(game, b"contract")
    assert set(record) >= CONTRACT_KEYS
    assert record["format"] == "arena-replay/1"
    assert record["game"] == name
    assert record["seed_commitment"] == hashlib.sha256(bytes.fromhex(str(record["seed"]))).hexdigest()
    json.dumps(record)
    for round_record in record["rounds"]:  # type: ignore[attr-defined]
        assert set(round_record) >= ROUND_KEYS
        assert ("dummy" in round_record) == (name == "friday13" and players == 3)
        assert ("draw_pile" in round_record) == (name == "amigo13")
        for move in round_record["moves"]:
            assert set(move) == MOVE_KEYS
    scores = [sum(r["penalties"][seat] for r in record["rounds"]) for seat in range(players)]  # type: ignore[attr-defined]
    assert record["scores"] == scores


def test_moves_record_totals_and_what_each_move_took() -> None:
    game = card_game("friday13", 4)
    record = play_randomly(game, b"totals")
    for round_record in record["rounds"]:  # type: ignore[attr-defined]
        piles: dict[str, list[str]] = {"cat": [], "mirror": [], "ladder": []}
        for move in round_record["moves"]:
            value = int(move["card"].split(":")[1])
            pile = piles[move["pile"]]
            if sum(int(card.split(":")[1]) for card in pile) + value > 13:
                assert move["took"] == pile
                piles[move["pile"]] = [move["card"]]
            else:
                assert move["took"] == []
                pile.append(move["card"])
            assert move["total"] == sum(int(card.split(":")[1]) for card in piles[move["pile"]])


def test_a_record_replays_and_a_forged_one_is_caught() -> None:
    game = card_game("amigo13", 4)
    record = play_randomly(game, b"verify")
    replayed = game.replay(record)
    assert replayed.outcome().scores == tuple(record["scores"])  # type: ignore[arg-type]

    forged = json.loads(json.dumps(record))
    forged["scores"][0] -= 1
    with pytest.raises(GameError, match="scores differ"):
        game.replay(forged)

    forged = json.loads(json.dumps(record))
    forged["rounds"][0]["moves"][0]["seat"] = (forged["rounds"][0]["moves"][0]["seat"] + 1) % 4
    with pytest.raises(GameError, match="out of turn"):
        game.replay(forged)

    forged = json.loads(json.dumps(record))
    forged["seed_commitment"] = "0" * 64
    with pytest.raises(GameError, match="commitment"):
        game.replay(forged)


def test_the_seed_stream_is_shake256_read_as_big_endian_words() -> None:
    seed = b"re-implement me"
    stream = SeedStream(seed)
    expected_first = struct.unpack(">Q", hashlib.shake_256(seed).digest(8))[0] % 7
    assert stream.below(7) == expected_first
    codes = bytes([3, 1, 4, 1, 5, 9, 2, 6])
    words = struct.unpack(">8Q", hashlib.shake_256(seed).digest(72)[8:])
    keyed = sorted((((word >> 8) & ((1 << 44) - 1)), code) for word, code in zip(words, codes, strict=True))
    assert list(stream.shuffled(codes)) == [code for _, code in keyed]


def test_the_commitment_is_the_sha256_of_the_seed_bytes() -> None:
    assert seed_commitment(b"\x01\x02") == hashlib.sha256(b"\x01\x02").hexdigest()
