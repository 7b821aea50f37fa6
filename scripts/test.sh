#!/usr/bin/env bash
# The whole test suite, as the README's second command and CI run it on a fresh machine:
# install the project with its test tools, then lint, type-check and test.
set -euo pipefail
cd "$(dirname "$0")/.."
# The suite starts hundreds of Python processes (nodes, web processes, bots, the CLI) that import the
# same modules, and pytest rewrites each test module's asserts on every worker. With bytecode caching
# off (as in many container images) each of them compiles everything again: about 0.4 s of CPU per
# node process and 10 s per pytest worker. The caches go to __pycache__ beside the sources, as usual.
unset PYTHONDONTWRITEBYTECODE

# Every requirement first, read from pyproject.toml (not repeated here): the build's own (mypyc compiles
# the engine), which the build then uses from this environment rather than from a throwaway one pip
# would fill on every run (about 17 s), the project's, and its test tools' (the extras of `test`).
python - <<'EOF' | python -m pip install --quiet --disable-pip-version-check -r /dev/stdin
import tomllib

project = tomllib.load(open("pyproject.toml", "rb"))
extras = project["project"]["optional-dependencies"]
wanted = [*project["build-system"]["requires"], *project["project"]["dependencies"]]
for requirement in extras["test"]:
    name, _, more = requirement.partition("[")
    wanted += [r for extra in more.rstrip("]").split(",") for r in extras[extra]] if name == "thirteen-arena" else [requirement]
print("\n".join(wanted))
EOF
# Then the project itself, on one core, beside the lint and the type check on the other: compiling the
# engine takes about 45 s, and neither of them reads what it makes. The tests wait for it.
build_log=$(mktemp)
python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e . >"$build_log" 2>&1 &
building=$!
trap 'kill "$building" 2>/dev/null || true; rm -f "$build_log"' EXIT  # a failed lint stops the build too
# System packages the tests use, from Debian when missing (one `apt-get update` for all):
# bubblewrap, the hosted bots' sandbox (tests/hosted); chromium, which tests/web drives through
# Playwright (Playwright cannot download browsers here), and, best effort, docker-compose for
# `docker-compose config` on docker-compose.yml (tests/scale/test_compose.py checks the file's
# structure without it too); and what each starter kit's build needs.
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1 || missing+=(docker-compose)
# kubectl renders deploy/k8s (`kubectl kustomize`, tests/scale/test_kubernetes.py); the Sentinel drill
# runs Debian's redis-server and redis-sentinel (tests/scale/test_sentinel_failover.py).
command -v kubectl >/dev/null 2>&1 || missing+=(kubernetes-client)
[ -x /usr/bin/redis-server ] || missing+=(redis-server)
[ -x /usr/bin/redis-sentinel ] || missing+=(redis-sentinel)
# Each starter kit under sample_bots/ lists the Debian packages its build needs, one per line
# (tests/kits build every kit and play them at one table).
for list in sample_bots/*/debian-packages.txt; do
  [ -f "$list" ] || continue
  while read -r package; do
    case "$package" in ''|'#'*) continue ;; esac
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done <"$list"
done
if [ "${#missing[@]}" -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "== apt-get install ${missing[*]}"
  { timeout 180 apt-get update -q && timeout 900 apt-get install -y -q "${missing[@]}"; } \
    >/dev/null 2>&1 || echo "(apt-get could not install ${missing[*]}: the hosted-bot and browser tests fail in CI)"
fi

echo "== ruff"
ruff check .
ruff format --check .
echo "== mypy"
# Beside it, on the other core, one collection of the tests writes their assert-rewritten bytecode:
# otherwise each of pytest's workers rewrites every test module itself at the start (about 12 s of
# CPU each on a fresh clone, about 7 s with the caches). Its output is the real run's to give.
python -m pytest -m "slow or not slow" --collect-only -q -n 0 -p no:cacheprovider "$@" >/dev/null 2>&1 &
collecting=$!
mypy || { kill "$collecting" 2>/dev/null; exit 1; }
wait "$collecting" || true
if ! wait "$building"; then
  cat "$build_log" >&2
  echo "pip install -e . failed (above): the tests need the project installed" >&2
  exit 1
fi
echo "== pytest"
status=0
# Both tiers: the fast one a developer's `pytest` runs, and the slow one it leaves out.
python -m pytest -m "slow or not slow" --durations=25 "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: the suite is broken or everything was deselected" >&2
  exit 1
fi
exit "$status"
