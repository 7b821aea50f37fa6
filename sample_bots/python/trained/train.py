"""Train the linear policy by self-play with REINFORCE, with nothing but numpy.

Every seat of every training match plays the same policy, drawing its actions from it. Each
decision is credited with the reward its seat got at the end of that round (a round's play
decides only that round's penalty), less the table's mean for the round: what the seat did
better than the others on the same cards; and, so that a few hundred matches already teach
something, with the penalty points the move itself took (the pile it made overflow). Adam
follows the policy gradient of each batch.

    python train.py                         # friday13, 4 players, about 10 minutes
    python train.py --matches 200 --out /tmp/w.npz --players 3,4,5,6 --game amigo13

Every `--report` matches it prints the greedy policy's mean penalty against three `random`
bots on fixed deals, each deal played from every seat.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from policy import WEIGHTS, LinearPolicy, Player

from arena.bots import StaticTurn, make_bot
from arena.envs.aec import ArenaEnv
from arena.games.cards import LIMIT, WILD, CardObservation


class Adam:
    """The Adam optimiser for a list of arrays, ascending the gradient."""

    def __init__(self, params: Sequence[np.ndarray], lr: float, beta1: float = 0.9, beta2: float = 0.999) -> None:
        self.params = params
        self.lr, self.beta1, self.beta2 = lr, beta1, beta2
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def ascend(self, grads: Sequence[np.ndarray]) -> None:
        self.t += 1
        for p, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m *= self.beta1
            m += (1 - self.beta1) * g
            v *= self.beta2
            v += (1 - self.beta2) * g * g
            m_hat = m / (1 - self.beta1**self.t)
            v_hat = v / (1 - self.beta2**self.t)
            p += self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)


def move_cost(observation: CardObservation, action: int) -> float:
    """The penalty points a move takes at once: the pile it overflows (wild cards count 2)."""
    code, pile = divmod(action, 3)
    if observation.totals[pile] + (code & 7) <= LIMIT:
        return 0.0
    return float(sum(2 if card >> 3 == WILD else 1 for card in observation.piles[pile]))


def self_play(env: ArenaEnv, policy: LinearPolicy, rng: np.random.Generator, shaping: float = 1.0):
    """One match, every seat drawing from the policy; its decisions and each decision's advantage
    (`shaping` weighs the move's own cost against the round's result)."""
    env.reset(seed=int(rng.integers(1 << 62)))
    xs, masks, actions, keys, costs = [], [], [], [], []
    returns: dict[tuple[int, int], float] = {}
    players = env.game.players
    while not env.terminations[env.agent_selection]:
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        round_number = env.infos[agent]["round"]
        observed = env.observe(agent)
        action = policy.sample(observed["observation"], observed["action_mask"], rng)
        xs.append(observed["observation"])
        masks.append(observed["action_mask"])
        actions.append(action)
        keys.append((seat, round_number))
        costs.append(move_cost(env.match.observation(seat), action))
        env.step(action)
        if env.terminations[env.agent_selection] or env.infos[agent]["round"] != round_number:
            for other in range(players):
                returns[(other, round_number)] = env.rewards[env.possible_agents[other]]
    table = {}
    for (_seat, round_number), value in returns.items():
        table.setdefault(round_number, []).append(value)
    advantages = [
        returns[key] - float(np.mean(table[key[1]])) - shaping * cost for key, cost in zip(keys, costs, strict=True)
    ]
    return xs, masks, actions, advantages


def train(
    policy: LinearPolicy,
    *,
    game: str = "friday13",
    players: Sequence[int] = (4,),
    matches: int = 2000,
    batch: int = 8,
    lr: float = 0.03,
    seed: int = 0,
    report: int = 0,
    on_report: Callable[[int, LinearPolicy], None] | None = None,
) -> LinearPolicy:
    """Improve `policy` in place over `matches` self-play matches; returns it."""
    rng = np.random.default_rng(seed)
    envs = {count: ArenaEnv(game, players=count) for count in players}
    optimiser = Adam([policy.weights, policy.bias], lr)
    batch_x, batch_m, batch_a, batch_adv = [], [], [], []
    for number in range(1, matches + 1):
        env = envs[players[int(rng.integers(len(players)))]]
        xs, masks, actions, advantages = self_play(env, policy, rng)
        batch_x += xs
        batch_m += masks
        batch_a += actions
        batch_adv += advantages
        if number % batch == 0:
            x = np.asarray(batch_x, np.float32)
            adv = np.asarray(batch_adv, np.float32)
            adv /= adv.std() + 1e-6
            p = policy.probabilities(x, np.asarray(batch_m))
            p[np.arange(len(batch_a)), batch_a] -= 1.0
            delta = -p * adv[:, None]  # d log pi(a) / d logits, times the advantage
            optimiser.ascend([delta.T @ x / len(x), delta.mean(axis=0)])
            batch_x, batch_m, batch_a, batch_adv = [], [], [], []
        if report and on_report is not None and number % report == 0:
            on_report(number, policy)
    return policy


def against_random(policy: LinearPolicy, game: str = "friday13", players: int = 4, deals: int = 20) -> float:
    """The greedy policy's mean penalty against `random` bots, each of `deals` fixed deals from every seat."""
    env = ArenaEnv(game, players=players)
    player = Player(policy, env.game)
    total = 0.0
    for deal in range(deals):
        for me in range(players):
            state = env.game.new_match(f"evaluation/{deal}".encode())
            bots = {seat: make_bot("random", env.game, seat, seed=deal * 8 + seat) for seat in range(players)}
            while not state.is_terminal():
                seat = state.current_player()
                legal = state.legal_actions()
                if seat == me:
                    state.apply(player.act(state.observation(seat), legal))
                else:
                    state.apply(bots[seat].act(StaticTurn(seat, legal, state.observation(seat))))
            total += state.outcome().scores[me]
    return total / (deals * players)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="friday13", choices=["friday13", "amigo13"])
    parser.add_argument("--players", default="4", help="comma-separated player counts to train on, e.g. 3,4,5,6")
    parser.add_argument("--matches", type=int, default=6000)
    parser.add_argument("--batch", type=int, default=8, help="matches per gradient step")
    parser.add_argument("--lr", type=float, default=0.03)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--report", type=int, default=1000, help="matches between progress lines (0: none)")
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    args = parser.parse_args(argv)
    try:
        players = [int(text) for text in args.players.split(",")]
    except ValueError:
        parser.error(f"--players is a comma-separated list of numbers, not {args.players!r}")
    try:
        env = ArenaEnv(args.game, players=players[0])
        for count in players[1:]:
            ArenaEnv(args.game, players=count)
    except ValueError as error:
        parser.error(str(error))
    start = time.monotonic()
    policy = LinearPolicy.zeros(env.encoding.size, env.encoding.actions)

    def progress(number: int, current: LinearPolicy) -> None:
        penalty = against_random(current, args.game, players[0], deals=10)
        print(f"{number:6d} matches, {time.monotonic() - start:6.0f} s: {penalty:5.2f} penalty a match against random")
        sys.stdout.flush()

    progress(0, policy)
    train(
        policy,
        game=args.game,
        players=players,
        matches=args.matches,
        batch=args.batch,
        lr=args.lr,
        seed=args.seed,
        report=args.report,
        on_report=progress,
    )
    policy.save(args.out, game=args.game, players=np.array(players), matches=args.matches, seed=args.seed)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
