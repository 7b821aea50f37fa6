"""The package reader's rules (arena/hosted/unpacker.py), run in this process on real archives.

The node never runs this code itself: it runs as the sandbox's first process (test_hostile_uploads.py
uploads the same kinds of package to a real node). Here each rule is pinned on its own: the member
that breaks it is named in one line, and nothing of it (nor anything outside) is written.
"""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
import tarfile
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.hosted.package import PackageError, pack
from arena.hosted.unpacker import MAX_BYTES, MAX_MEMBERS, REFUSED, Refused, Summary, unpack
from tests.hosted.bombs import long_names, many_files, symlink_chain

REPO = Path(__file__).resolve().parents[2]
UNPACKER = REPO / "arena" / "hosted" / "unpacker.py"


def archive(*members: tuple[tarfile.TarInfo, bytes], fmt: int = tarfile.PAX_FORMAT) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=fmt) as out:
        for info, data in members:
            out.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def member(
    name: str, data: bytes = b"x", kind: bytes = tarfile.REGTYPE, mode: int = 0o644, link: str = ""
) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.linkname = kind, mode, link
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    return info, data


@pytest.fixture
def into(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """An empty folder inside a fence: the fence must hold nothing but the folder afterwards."""
    folder = tmp_path / "fence" / "bot"
    folder.mkdir(parents=True)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield folder, fd
    finally:
        os.close(fd)
    assert [path.name for path in (tmp_path / "fence").iterdir()] == ["bot"], "something was written outside"


def refused(data: bytes, fd: int | None = None) -> str:
    with pytest.raises(Refused) as caught:
        unpack(io.BytesIO(data).read, fd)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 300, message
    return message


CASES: list[tuple[str, Callable[[], bytes], str]] = [
    ("symlink", lambda: archive(member("bot.py"), member("link", kind=tarfile.SYMTYPE, link="/etc/passwd")),
     "the package member 'link' is a symbolic link: a package holds only files and folders"),
    ("hard link", lambda: archive(member("bot.py"), member("hard", kind=tarfile.LNKTYPE, link="bot.py")),
     "the package member 'hard' is a hard link"),
    ("character device", lambda: archive(member("tty", kind=tarfile.CHRTYPE)), "'tty' is a character device"),
    ("block device", lambda: archive(member("sda", kind=tarfile.BLKTYPE)), "'sda' is a block device"),
    ("fifo", lambda: archive(member("pipe", kind=tarfile.FIFOTYPE)), "'pipe' is a fifo"),
    ("GNU long name", lambda: archive(member("n" * 200), fmt=tarfile.GNU_FORMAT), "is a GNU long name"),
    ("global pax header", lambda: archive(member("g", kind=tarfile.XGLTYPE)), "'g' is a global pax header"),
    ("absolute path", lambda: archive(member("/etc/cron.d/x")), "'/etc/cron.d/x' has an absolute path"),
    ("dot-dot", lambda: archive(member("a/../../x")), "'a/../../x' has '..' in its path"),
    ("name part", lambda: archive(member("d/" + "n" * 256)), "has a name part of over 255 bytes"),
    ("path", lambda: archive(member("/".join(["p" * 200] * 6))), "has a path of 1,205 bytes; the most is 1,024"),
    ("control character", lambda: archive(member("bot.py\nERROR fake log line")), "has a control character in its name"),
    ("duplicate", lambda: archive(member("bot.py"), member("bot.py")), "'bot.py' appears twice"),
    ("file as folder", lambda: archive(member("a"), member("a/b")), "'a/b' is inside 'a', which is a file"),
    ("folder as file", lambda: archive(member("a", kind=tarfile.DIRTYPE), member("a")), "'a' appears twice"),
    ("too many", lambda: many_files(MAX_MEMBERS + 1), "the package holds more than 2,000 members"),
    (
        "too many folders",
        lambda: archive(*(member("/".join(top * 510) + "/f") for top in "abcd")),
        "the package holds more than 2,000 files and folders",
    ),
    ("too large", lambda: archive(member("a", bytes(MAX_BYTES // 2)), member("b", bytes(MAX_BYTES // 2 + 1))),
     "the package unpacks to more than 20.0 MB, the limit"),
    ("empty", lambda: archive(member("only", kind=tarfile.DIRTYPE)), "the package holds no files: nothing to run"),
    ("not gzip", lambda: b"PK\x03\x04 a zip file", "the package is not a readable .tar.gz"),
    ("cut short", lambda: archive(member("bot.py", bytes(100_000)))[:-2000], "it is cut short"),
    ("long pax header", lambda: long_names(1, 1 << 20), "member 1 has a pax header of 1,048,590 bytes; the most read is 4,096"),
    ("symlink chain", lambda: symlink_chain("/bot", Path("/etc")), "the package member 'a' is a symbolic link"),
]  # fmt: skip


def sparse() -> bytes:
    info, data = member("holes", bytes(10))
    info.pax_headers = {"GNU.sparse.size": "10"}
    return archive((info, data))


CASES += [("pax key", sparse, "'holes' has the pax key 'GNU.sparse.size', which a package may not use")]


@pytest.mark.parametrize(("case", "make", "said"), CASES, ids=[case for case, _, _ in CASES])
def test_a_member_that_breaks_a_rule_is_named_in_one_line_and_nothing_is_written(
    case: str, make: Callable[[], bytes], said: str, into: tuple[Path, int]
) -> None:
    folder, fd = into
    assert said in refused(make(), fd)
    assert said in refused(make(), None), "checking says the same as unpacking"
    if case in ("symlink", "hard link", "absolute path", "dot-dot", "symlink chain"):
        assert not any(path.is_symlink() for path in folder.rglob("*"))


def test_modes_keep_only_the_executable_bit_and_dot_slash_names_are_the_folder_itself(into: tuple[Path, int]) -> None:
    folder, fd = into
    data = archive(
        member(".", kind=tarfile.DIRTYPE, mode=0o7777),
        member("./run.sh", b"#!/bin/sh\n", mode=0o6755),
        member("./lib/sticky", b"", mode=0o1666),
        member("./lib", kind=tarfile.DIRTYPE, mode=0o2700),
    )
    assert unpack(io.BytesIO(data).read, fd) == Summary(2, 1, 10)
    modes = {path.relative_to(folder).as_posix(): stat.S_IMODE(path.stat().st_mode) for path in folder.rglob("*")}
    assert modes == {"run.sh": 0o755, "lib": 0o755, "lib/sticky": 0o644}


def test_the_sample_bots_pack_and_pass(tmp_path: Path) -> None:
    for name in ("python", "java", "node"):
        package = pack(REPO / "sample_bots" / name)
        assert unpack(io.BytesIO(package.data).read, None).files == package.files


def test_pack_copies_a_link_to_a_file_inside_and_leaves_out_other_links(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    (folder / "lib").mkdir(parents=True)
    (folder / "lib" / "tool.js").write_text("tool")
    (folder / "lib" / "tool.js").chmod(0o755)
    (folder / ".bin").mkdir()
    (folder / ".bin" / "tool").symlink_to("../lib/tool.js")
    (folder / "passwd").symlink_to("/etc/passwd")
    (folder / "libs").symlink_to("lib")
    package = pack(folder)
    with tarfile.open(fileobj=io.BytesIO(package.data)) as read:
        kinds = {info.name: (info.type, info.mode) for info in read}
    assert kinds == {
        ".bin": (tarfile.DIRTYPE, 0o755),
        ".bin/tool": (tarfile.REGTYPE, 0o755),
        "lib": (tarfile.DIRTYPE, 0o755),
        "lib/tool.js": (tarfile.REGTYPE, 0o755),
    }


def test_pack_refuses_in_the_readers_words_what_a_node_would_refuse(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text("")
    (folder / "odd\tname").write_text("")
    with pytest.raises(PackageError, match=r"cannot be a hosted bot: the package member 'odd\\tname' has a control"):
        pack(folder)


@pytest.mark.parametrize("bomb", ["long_names", "many_files"])
def test_reading_a_bomb_stays_within_a_few_megabytes(bomb: str) -> None:
    data = long_names() if bomb == "long_names" else many_files()
    tracemalloc.start()
    try:
        refused(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, f"{peak:,} bytes"


def test_the_script_unpacks_then_becomes_the_command_with_stdin_on_dev_null(tmp_path: Path) -> None:
    data = archive(member("bot.sh", b"cat; echo ran; stat -c %a bot.sh\n"))
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(UNPACKER), "--", "sh", "bot.sh"],
        input=data,
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"ran\n644\n", b"")


def test_the_script_says_why_it_refused_in_one_line_and_runs_nothing(tmp_path: Path) -> None:
    data = archive(member("bot.sh", b"touch ran\n"), member("bot.sh"))
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(UNPACKER), "--", "sh", "bot.sh"],
        input=data,
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == REFUSED
    assert done.stderr == b"the package was refused: the package member 'bot.sh' appears twice\n"
    assert not (tmp_path / "ran").exists()
