"""The `arena` command: local play and A/B tests, the server, and people's commands against one."""

from arena.cli.commands import main

__all__ = ["main"]
