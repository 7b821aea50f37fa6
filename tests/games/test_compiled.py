"""The engine runs compiled (mypyc) where it is built and as plain Python where it is not, move for move alike.

`arena.compiled` decides when `arena` is imported, so each test asks a fresh process, over the
package as it is here or over a copy changed the way a developer's tree or an installation can
be: a source edited after the build, a part of the build missing, no build at all. Each process
plays pinned matches (test_pinned_records.py) and says which engine ran them. The tests that need
a build skip where there is none (`pip install -e .` or `python setup.py build_ext --inplace`
makes one).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import arena
import arena.compiled
from tests.games.test_pinned_records import MC_MATCHES, REPLAYS

PACKAGE = Path(arena.__file__).resolve().parent
REPOSITORY = Path(__file__).resolve().parents[2]
PROBE = """
import json, sys, tempfile
from pathlib import Path
import arena.compiled
from tests.games.test_pinned_records import mc_match_digest, replay_digest
game, params, bots, seatings, _ = {replay!r}
mc_game, players, seed, _ = {mc!r}
with tempfile.TemporaryDirectory() as folder:
    replay = replay_digest(game, params, bots, seatings, Path(folder))
files = [sys.modules[name].__file__ for name in arena.compiled.MODULES]
from arena.bots.montecarlo import MonteCarloBot
from arena.games import make_game
budget = MonteCarloBot(make_game("friday13"), 0).samples
print(json.dumps({{"status": arena.compiled.STATUS, "compiled": arena.compiled.COMPILED, "files": files,
                  "arena": arena.__file__, "replay": replay, "mc": mc_match_digest(mc_game, players, seed, 60),
                  "budget": budget}}))
"""
BUILT = bool(arena.compiled.MODULES) and "not for this interpreter" not in arena.compiled.STATUS
needs_build = pytest.mark.skipif(not BUILT, reason="no compiled build here: pip install -e . makes one")


def printed_json(code: str, package_parent: Path, *, pure: bool) -> dict[str, Any]:
    """The JSON `code` prints in a new process that imports `arena` from `package_parent`, plain with `pure`."""
    env = {key: value for key, value in os.environ.items() if key != arena.compiled.PURE_ENV}
    env["PYTHONPATH"] = os.pathsep.join([str(package_parent), str(REPOSITORY)])
    if pure:
        env[arena.compiled.PURE_ENV] = "1"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=package_parent, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def probe(package_parent: Path, *, pure: bool = False) -> dict[str, Any]:
    """What a new process that imports `arena` from `package_parent` runs, and the pinned digests it plays."""
    result = printed_json(PROBE.format(replay=REPLAYS[1], mc=MC_MATCHES[2]), package_parent, pure=pure)
    assert Path(result["arena"]).resolve().parent == (package_parent / "arena").resolve()
    assert result["replay"] == REPLAYS[1][-1], "the same arena play replays, byte for byte"
    assert result["mc"] == MC_MATCHES[2][-1], "the same moves of mc"
    assert result["budget"] == (2000 if result["compiled"] else 700), "mc's playouts: what the engine affords"
    return result


def copy_of_package(tmp_path: Path) -> Path:
    shutil.copytree(PACKAGE, tmp_path / "arena", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def plain(result: dict[str, Any]) -> bool:
    return not result["compiled"] and result["files"] and all(file.endswith(".py") for file in result["files"])


def test_plain_python_is_chosen_by_the_variable_and_plays_the_same_moves() -> None:
    result = probe(PACKAGE.parent, pure=True)
    assert result["status"].startswith("plain Python")
    if BUILT:
        assert result["status"] == f"plain Python: {arena.compiled.PURE_ENV} is set"
        assert plain(result)


def test_a_package_without_a_build_runs_its_sources(tmp_path: Path) -> None:
    root = copy_of_package(tmp_path)
    for built in [*root.rglob("*.so"), root / "arena" / "compiled.sha256"]:
        built.unlink(missing_ok=True)
    result = probe(root)
    assert result["status"] == "plain Python: this installation has no compiled build"
    assert result["files"] == [] and not result["compiled"]


@needs_build
def test_the_build_runs_compiled() -> None:
    result = probe(PACKAGE.parent)
    assert result["compiled"], result["status"]
    assert result["status"] == f"compiled with mypyc: {len(arena.compiled.MODULES)} modules"
    assert all(not file.endswith(".py") for file in result["files"])
    assert "arena.games.cards" in arena.compiled.MODULES and "arena.bots.montecarlo" in arena.compiled.MODULES


@needs_build
def test_a_source_edited_after_the_build_runs_as_plain_python_with_the_rest(tmp_path: Path) -> None:
    root = copy_of_package(tmp_path)
    with (root / "arena" / "games" / "cards.py").open("a") as source:
        source.write("\n# edited after the build\n")
    result = probe(root)
    assert result["status"] == (
        "plain Python: arena/games/cards.py changed after it was compiled (pip install -e . compiles it again)"
    )
    assert plain(result), "the whole group runs as source, not only the edited module"


@needs_build
def test_a_missing_part_of_the_build_runs_as_plain_python(tmp_path: Path) -> None:
    root = copy_of_package(tmp_path)
    (extension,) = (root / "arena" / "bots").glob("montecarlo.*.so")
    extension.unlink()
    result = probe(root)
    assert result["status"] == "plain Python: arena/bots/montecarlo.py has no compiled build for this interpreter"
    assert plain(result)

    (library,) = (root / "arena").glob("compiled__mypyc.*.so")
    library.unlink()
    assert probe(root)["status"].startswith("plain Python: the compiled build is not for this interpreter")


@needs_build
def test_the_compiled_modules_need_only_the_system_libraries() -> None:
    """A hosted bot's sandbox holds /usr (with /lib and /lib64), the interpreter and the `arena` folder,
    and its bot imports the engine from there: the extensions may need no other library."""
    ldd = shutil.which("ldd")
    if ldd is None:
        pytest.skip("ldd is not installed")
    extensions = sorted(PACKAGE.rglob("*.so"))
    assert len(extensions) == len(arena.compiled.MODULES) + 1, "a shim per module and the shared library"
    for extension in extensions:
        listing = subprocess.run([ldd, str(extension)], capture_output=True, text=True, check=True).stdout
        assert "not found" not in listing, listing
        needed = [Path(word) for line in listing.splitlines() for word in line.split() if word.startswith("/")]
        for library in needed:
            assert library.resolve().is_relative_to("/usr") or library.parts[1].startswith("lib"), listing


@pytest.mark.parametrize("game, params", [("friday13", {"players": 3}), ("amigo13", {"players": 4}), ("board13", {})])
def test_what_the_built_in_bots_workers_are_sent_survives_pickling(game: str, params: dict[str, Any]) -> None:
    """The node sends a game and each move's observation to its built-in bots' worker processes by pickle;
    a compiled frozen dataclass refuses pickle's default restore, so each one rebuilds itself."""
    import pickle

    from arena.games import make_game

    made = make_game(game, **params)
    state = made.new_match(b"pickled")
    observation = state.observation(state.current_player())
    assert pickle.loads(pickle.dumps(made)).params() == made.params()
    assert pickle.loads(pickle.dumps(observation)) == observation
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    assert pickle.loads(pickle.dumps(state.outcome())) == state.outcome()


FROZEN_PROBE = """
import dataclasses, json
import arena.compiled
from arena.games import make_game
from arena.games.cards import CardObservation
state = make_game("amigo13", players=5).new_match(b"frozen")
for _ in range(23):
    state.apply(state.legal_actions()[0])
seen = state.observation(state.current_player())
values = {field.name: getattr(seen, field.name) for field in dataclasses.fields(seen)}
try:
    seen.round = 9
    refused = ""
except dataclasses.FrozenInstanceError as error:
    refused = type(error).__name__
moved = dataclasses.replace(seen, current_player=-1)
def distinct(number, seen_value):
    if isinstance(seen_value, int):
        return number
    if isinstance(seen_value, str):
        return f"s{number}"
    if seen_value and isinstance(seen_value[0], tuple):
        return ((number,),)
    return (f"s{number}",) if seen_value and isinstance(seen_value[0], str) else (number,)
marked = {name: distinct(number, value) for number, (name, value) in enumerate(values.items())}
made = CardObservation(**marked)
print(json.dumps({"compiled": arena.compiled.COMPILED, "refused": refused, "round": seen.round,
                  "same": CardObservation(**values) == seen and hash(CardObservation(**values)) == hash(seen),
                  "positional": CardObservation(*values.values()) == seen,
                  "replaced": [moved.current_player, moved.moves == seen.moves, moved.hand == seen.hand],
                  "misplaced": [name for name, value in marked.items() if getattr(made, name) != value]}))
"""


@pytest.mark.parametrize("pure", [False, True], ids=["as-built", "plain"])
def test_a_card_observation_is_frozen_and_made_from_its_fields(pure: bool) -> None:
    """CardObservation writes its `__init__` out (compiled, it is ~3 µs a request quicker than the generated
    one): compiled or not, it still sets every field in order and refuses changes."""
    result = printed_json(FROZEN_PROBE, REPOSITORY, pure=pure)
    assert result["compiled"] == (BUILT and not pure)
    assert result["refused"] == "FrozenInstanceError"
    assert result["round"] == 0
    assert result["same"] and result["positional"]
    assert result["replaced"] == [-1, True, True]
    assert result["misplaced"] == [], "each field set from its own argument"
