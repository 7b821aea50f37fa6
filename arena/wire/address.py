"""Where a node listens unless told otherwise: `arena serve`, `arena demo` and every command that calls one."""

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 50051
DEFAULT_SERVER = f"{DEFAULT_HOST}:{DEFAULT_PORT}"
