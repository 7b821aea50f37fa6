#!/usr/bin/env bash
# The whole test suite, as the README's second command and CI run it on a fresh machine:
# install the project with its test tools, then lint, type-check and test.
set -euo pipefail
cd "$(dirname "$0")/.."

python -m pip install --quiet --disable-pip-version-check -e '.[test]'

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
