"""Generate the Python code in arena/v1 from proto/arena/v1 (messages, stubs, type stubs).

Run from anywhere: `python scripts/generate_proto.py`. The result is committed; the test
tests/server/test_generated_code.py regenerates into a temporary directory and fails when the
committed files are stale. grpcio-tools and mypy-protobuf are pinned in the `test` extra so that
every machine generates the same bytes.

The messages' type stubs (`*_pb2.pyi`) come from protoc itself; the gRPC stubs' (`*_pb2_grpc.pyi`:
the client stubs, the servicer base classes, `add_*Servicer_to_server`) from mypy-protobuf's
`protoc-gen-mypy_grpc`, so that calling them needs no `type: ignore`.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import sysconfig
from importlib.resources import files
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "proto"
PACKAGE = Path("arena") / "v1"
INIT_TEXT = '"""Code generated from proto/arena/v1 by scripts/generate_proto.py. Do not edit."""\n'


STREAM_HANDLER = re.compile(
    r"-> _typing\.Union\[_abc\.Iterator\[(?P<type>[\w.]+)\], _abc\.AsyncIterator\[(?P=type)\]\]:"
)
"""The return type mypy-protobuf gives a servicer method that streams its responses."""


def proto_files() -> list[Path]:
    return sorted((PROTO_DIR / PACKAGE).glob("*.proto"))


def grpc_stub_plugin() -> str:
    """mypy-protobuf's protoc plugin for the gRPC stubs, from this interpreter's environment first."""
    name = "protoc-gen-mypy_grpc"
    beside = Path(sysconfig.get_path("scripts")) / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} is missing: pip install -e '.[test]' (it comes with mypy-protobuf)")
    return found


def widen_stream_handlers(stub: Path) -> int:
    """Let a response-streaming servicer method also be a coroutine that writes with
    `context.write` and returns None: grpc.aio runs both forms, mypy-protobuf types only the
    iterator. Returns how many methods it widened."""
    text, count = STREAM_HANDLER.subn(
        r"-> _typing.Union[_abc.Iterator[\g<type>], _abc.AsyncIterator[\g<type>], _abc.Awaitable[None]]:",
        stub.read_text(),
    )
    stub.write_text(text)
    return count


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
        f"--plugin=protoc-gen-mypy_grpc={grpc_stub_plugin()}",
        f"--mypy_grpc_out=quiet:{out}",
        *(str(path.relative_to(PROTO_DIR)) for path in proto_files()),
    ]
    code = protoc.main(args)
    if code != 0:
        raise SystemExit(f"protoc failed with exit code {code}")
    if not sum(widen_stream_handlers(stub) for stub in target.glob("*_pb2_grpc.pyi")):
        raise SystemExit("found no streaming servicer method in the gRPC stubs: has mypy-protobuf's output changed?")
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
