"""The trained sample bot plays against a real server: the server tests' fixtures serve here too."""

from tests.server.conftest import arena

__all__ = ["arena"]
