"""The server fixtures of tests/server, for tests that run the store through a real server."""

from tests.server.conftest import arena

__all__ = ["arena"]
