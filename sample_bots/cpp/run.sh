#!/bin/sh
# Runs the built C++ sample bot: run.sh --server HOST:PORT --token TOKEN [--games ...]
# [--max-matches N] [--matches N] (or ARENA_SERVER and ARENA_TOKEN). Build it first: build.sh.
here="$(dirname "$0")"
[ -x "$here/build/bot" ] || { echo "run.sh: build the bot first: $here/build.sh" >&2; exit 1; }
exec "$here/build/bot" "$@"
