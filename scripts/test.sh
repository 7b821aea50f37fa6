#!/usr/bin/env bash
# The whole test suite, as the README's second command and CI run it on a fresh machine:
# install the project with its test tools, then lint, type-check and test.
set -euo pipefail
cd "$(dirname "$0")/.."

python -m pip install --quiet --disable-pip-version-check -e '.[test]'
# Best effort: docker-compose lets tests/scale/test_compose.py run `docker-compose config` on
# docker-compose.yml (the test checks the file's structure without it too).
if ! command -v docker-compose >/dev/null 2>&1 && ! docker compose version >/dev/null 2>&1 \
    && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  timeout 300 apt-get install -y -q docker-compose >/dev/null 2>&1 || echo "(docker-compose not installed; skipping its check)"
fi

# tests/web drives Debian's chromium through Playwright (which cannot download browsers here).
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  { timeout 120 apt-get update -q && timeout 600 apt-get install -y -q chromium; } >/dev/null 2>&1 \
    || echo "(chromium not installed: the browser tests in tests/web will fail in CI, skip elsewhere)"
fi

echo "== ruff"
ruff check .
ruff format --check .
echo "== mypy"
mypy
echo "== pytest"
status=0
python -m pytest "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: the suite is broken or everything was deselected" >&2
  exit 1
fi
exit "$status"
