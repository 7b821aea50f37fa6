"""Watching a match another node plays: its public view, rebuilt from the match's event stream as it grows.

The node that plays a match writes its seed and every applied action to the event stream; any
node can re-apply them to the same engine and show what a spectator may see. Only the public
view leaves here, never a hand or the seed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from arena.games import make_game
from arena.node.matches import Update
from arena.store import MatchRecord, Store
from arena.store.work import WorkQueue
from arena.wire import convert

POLL = 0.2
"""Seconds between two looks at the event stream of a match played elsewhere."""


async def follow(store: Store, record: MatchRecord, poll: float = POLL) -> AsyncIterator[Update]:
    """The public view of `record`'s match after each batch of moves its host writes, until it is stored;
    the last update says so (`ended`). Nothing when the match has no event stream (never started)."""
    queue = WorkQueue(store.redis)
    game = make_game(record.game, **record.params)
    encoder = convert.encoder_for(game)
    state: Any = None
    applied = 0
    shown = False
    while True:
        stored, events = await queue.found(record.match_id)
        ended = stored is not None
        if not events.seed:
            return
        if state is None:
            state = game.new_match(bytes.fromhex(events.seed))
        last_move = ""
        for action in events.actions[applied:]:
            seat = state.current_player()
            state.apply(action)
            last_move = f"seat {seat} played {game.action_text(action)}"
        # The view as it is first, then after each batch of moves: not again at every look while nobody moves.
        if last_move or not shown or ended:
            yield Update(encoder.encode(state.public_observation()), last_move, ended=ended)
            shown = True
        applied = len(events.actions)
        if ended:
            return
        await asyncio.sleep(poll)
