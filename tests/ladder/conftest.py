"""The server fixtures of tests/server, for ladder tests."""

from tests.server.conftest import arena

__all__ = ["arena"]
