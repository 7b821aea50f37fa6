"""The compiled kits' build.sh: a missing tool stops it with one line saying what to install."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.kits.conftest import REPO

COMPILED = ("cpp", "go")


@pytest.mark.parametrize("language", COMPILED)
def test_build_sh_stops_with_one_line_naming_a_missing_tool(language: str, tmp_path: Path) -> None:
    # Every command of /usr/bin but protoc, as on a machine without protobuf-compiler.
    for tool in Path("/usr/bin").iterdir():
        if tool.name != "protoc":
            (tmp_path / tool.name).symlink_to(tool)
    script = REPO / "sample_bots" / language / "build.sh"
    done = subprocess.run([str(script)], capture_output=True, text=True, env={"PATH": str(tmp_path)}, timeout=60)
    assert done.returncode != 0
    assert done.stderr.count("\n") == 1 and "protoc is missing" in done.stderr, done.stderr
