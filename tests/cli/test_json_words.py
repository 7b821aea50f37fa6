"""The CLI's JSON shows enum values as words and 64-bit numbers as numbers, at any depth."""

from __future__ import annotations

from arena.cli.options import enum_word, to_dict
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb


def test_enum_values_are_words_in_nested_and_repeated_messages() -> None:
    reply = api_pb.GetBotLogsResponse(
        versions=[
            api_pb.HostedVersion(version=1, status=api_pb.HOSTED_VERSION_STATUS_OK, run="python bot.py"),
            api_pb.HostedVersion(version=2, status=api_pb.HOSTED_VERSION_STATUS_FAILED, reason="crashed"),
        ]
    )
    shown = to_dict(reply)
    assert [(v["version"], v["status"], v["reason"]) for v in shown["versions"]] == [
        (1, "ok", ""),
        (2, "failed", "crashed"),
    ]
    summary = to_dict(pb.MatchSummary(match_id="m1", termination=pb.TERMINATION_FORFEIT))
    assert (summary["match_id"], summary["termination"]) == ("m1", "forfeit")
    status = api_pb.TournamentInfo(status=api_pb.TOURNAMENT_STATUS_FINISHED_WITH_ABORTS)
    assert to_dict(status)["status"] == "finished-with-aborts"


def test_64_bit_numbers_are_numbers_not_text() -> None:
    shown = to_dict(api_pb.GetBotLogsResponse(versions=[api_pb.HostedVersion(version=1, created_ms=1795459463338)]))
    assert shown["versions"][0]["created_ms"] == 1795459463338
    assert to_dict(api_pb.HostedVersion(size_bytes=2**40))["size_bytes"] == 2**40


def test_enum_word_reads_a_value_the_enum_does_not_know_as_unspecified() -> None:
    assert enum_word(api_pb.BotKind, api_pb.BOT_KIND_HOSTED) == "hosted"
    assert enum_word(api_pb.BotKind, 99) == "unspecified"
