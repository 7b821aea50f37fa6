"""The server fixtures of tests/server, for the command-line tests."""

from tests.server.conftest import arena

__all__ = ["arena"]
