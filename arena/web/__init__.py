"""The web UI of `arena serve`: pages for people and the read-only JSON API behind them.

Import from the modules themselves: the node imports `arena.web.listener` and `arena.web.process` for its
web process and settings, and must not pay for FastAPI and uvicorn (about 0.5 s of CPU a process, loaded
by `arena.web.app` and `arena.web.server`) when it serves no page itself.
"""
