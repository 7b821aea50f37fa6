"""Generate the Python code in arena/v1 from proto/arena/v1 (messages, stubs, type stubs).

Run from anywhere: `python scripts/generate_proto.py`. The result is committed; the test
tests/server/test_generated_code.py regenerates into a temporary directory and fails when the
committed files are stale. grpcio-tools is pinned in the `test` extra so that every machine
generates the same bytes.
"""

from __future__ import annotations

import argparse
import sys
from importlib.resources import files
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "proto"
PACKAGE = Path("arena") / "v1"
INIT_TEXT = '"""Code generated from proto/arena/v1 by scripts/generate_proto.py. Do not edit."""\n'


def proto_files() -> list[Path]:
    return sorted((PROTO_DIR / PACKAGE).glob("*.proto"))


def generate(out: Path) -> list[Path]:
    """Write the generated package under `out` (so that it lands in out/arena/v1); return its files."""
    target = out / PACKAGE
    target.mkdir(parents=True, exist_ok=True)
    for stale in target.glob("*_pb2*"):
        stale.unlink()
    well_known = str(files("grpc_tools") / "_proto")
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_DIR}",
        f"-I{well_known}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        *(str(path.relative_to(PROTO_DIR)) for path in proto_files()),
    ]
    code = protoc.main(args)
    if code != 0:
        raise SystemExit(f"protoc failed with exit code {code}")
    (target / "__init__.py").write_text(INIT_TEXT)
    return sorted(target.iterdir())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT, help="root to write arena/v1 under (default: the repo)")
    options = parser.parse_args(argv)
    written = generate(options.out)
    names = [path.name for path in written if path.is_file()]
    print(f"wrote {len(names)} files to {options.out / PACKAGE}: {', '.join(names)}", file=sys.stderr)


if __name__ == "__main__":
    main()
