"""The committed code in arena/v1 is what scripts/generate_proto.py makes from proto/: the
messages, the gRPC stubs and the type stubs of both (mypy-protobuf's for the gRPC stubs)."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path


def test_generated_code_matches_the_protos(repo_root: Path, tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(repo_root / "scripts" / "generate_proto.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    fresh = tmp_path / "arena" / "v1"
    committed = repo_root / "arena" / "v1"
    names = sorted(path.name for path in fresh.iterdir())
    typed_stubs = {f"{proto}_pb2_grpc.pyi" for proto in ("arena_service", "bot_service", "messages")}
    assert typed_stubs <= set(names), f"no typed gRPC stubs generated: {names}"
    stale = [
        name
        for name in names
        if not (committed / name).exists() or not filecmp.cmp(fresh / name, committed / name, shallow=False)
    ]
    extra = sorted(path.name for path in committed.glob("*.py*") if path.name not in names)
    assert not stale and not extra, (
        f"arena/v1 is stale ({', '.join(stale + extra)}): run python scripts/generate_proto.py and commit the result"
    )
