"""Ratings and ladder queues as ArenaService messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.node.ladder import Waiting
from arena.ratings import HistoryEntry, NeighbourOrder
from arena.store.ratings import LeaderboardRow
from arena.v1 import arena_service_pb2 as api_pb


def leaderboard_row(row: LeaderboardRow) -> api_pb.LeaderboardRow:
    return api_pb.LeaderboardRow(
        rank=row.rank,
        bot=row.bot,
        mu=row.mu,
        sigma=row.sigma,
        conservative=row.conservative,
        games=row.games,
        last_played_ms=row.last_ms,
        provisional=row.provisional,
        version=row.version,
    )


def neighbour_order(order: NeighbourOrder) -> api_pb.NeighbourOrder:
    return api_pb.NeighbourOrder(
        upper=order.upper,
        lower=order.lower,
        z=order.z,
        established=order.established,
        since_games=order.since_games or 0,
        since_earlier=order.since_earlier,
    )


def rating_point(point: HistoryEntry) -> api_pb.RatingPoint:
    return api_pb.RatingPoint(
        match_id=point.match_id,
        mu=point.mu,
        sigma=point.sigma,
        conservative=point.conservative,
        games=point.games,
        at_ms=round(point.at * 1000),
    )


def queues_response(
    queues: Mapping[str, Sequence[Waiting]], sizes: Mapping[str, int], now: float
) -> api_pb.GetQueueResponse:
    return api_pb.GetQueueResponse(
        queues=[
            api_pb.LadderQueue(
                game=game,
                table_size=sizes.get(game, 0),
                entries=[
                    api_pb.QueueEntry(
                        game=game,
                        bot=entry.bot,
                        ticket=entry.ticket,
                        waited_seconds=entry.waited(now),
                        since_ms=round(entry.since * 1000),
                    )
                    for entry in entries
                ],
            )
            for game, entries in sorted(queues.items())
        ]
    )
