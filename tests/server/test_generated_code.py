"""The committed code in arena/v1 is what scripts/generate_proto.py makes from proto/."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path


def test_generated_code_matches_the_protos(repo_root: Path, tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(repo_root / "scripts" / "generate_proto.py"), "--out", str(tmp_path)],
        check=True, capture_output=True,
    )  # fmt: skip
    fresh = tmp_path / "arena" / "v1"
    committed = repo_root / "arena" / "v1"
    names = sorted(path.name for path in fresh.iterdir())
    stale = [
        name
        for name in names
        if not (committed / name).exists() or not filecmp.cmp(fresh / name, committed / name, shallow=False)
    ]
    extra = sorted(path.name for path in committed.glob("*.py*") if path.name not in names)
    assert not stale and not extra, (
        f"arena/v1 is stale ({', '.join(stale + extra)}): run python scripts/generate_proto.py and commit the result"
    )
