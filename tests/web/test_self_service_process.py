"""Signing in to the web UI of a real `arena serve`, whose web UI runs in a process of its own: it acts
for the owner through its node's gRPC API, at the address the node passed it over their socket pair."""

from __future__ import annotations

from arena.v1 import arena_service_pb2 as api_pb
from tests.server.conftest import bearer
from tests.server.test_workers import ADMIN
from tests.web.test_self_service import Browser
from tests.web.test_web_process import node


def test_the_web_process_of_arena_serve_acts_for_a_signed_in_owner_through_its_node(redis_url: str) -> None:
    with node(redis_url, name="self-serve") as arena:
        api = arena.api()
        owner = api.CreateOwner(api_pb.CreateOwnerRequest(name="cara"), metadata=bearer(ADMIN), timeout=10).token
        browser = Browser(arena.web)
        assert browser.sign_in(owner).status == 200
        made = browser.post("/api/me/bots", {"name": "cara-bot", "games": ["board13"]})
        assert made.status == 200, made.body
        listed = api.ListBots(api_pb.ListBotsRequest(owner="cara"), timeout=10)
        assert [bot.name for bot in listed.bots] == ["cara-bot"]
        port = arena.address.rsplit(":", 1)[1]
        assert f"--server 127.0.0.1:{port} --token {made.body['token']}" in made.body["command"]
