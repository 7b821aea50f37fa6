"""Unconfined (`arena serve --unsafe-no-sandbox`), a package is read by the same reader, in a plain child process:
checked at submit, unpacked into a private folder at each launch, and that folder removed when the launch ends."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.hosted.package import PackageError, pack
from arena.hosted.sandbox import Sandbox, SandboxLimits, python_runtime
from tests.hosted.bombs import many_files, symlink_chain

pytestmark = pytest.mark.asyncio
UNCONFINED = "a trial sandbox failed: bwrap: No permissions to create a new namespace"


async def test_an_unconfined_node_checks_and_unpacks_with_the_same_reader_in_a_child_process(tmp_path: Path) -> None:
    sandbox = Sandbox(SandboxLimits(), python_runtime(), None, problem=UNCONFINED)
    outside = tmp_path / "outside"
    outside.mkdir()
    with pytest.raises(PackageError, match=r"^the package member 'a' is a symbolic link"):
        await sandbox.check(symlink_chain("/tmp/arena-hosted-xxxxxxxx", outside))
    with pytest.raises(PackageError, match=r"^the package holds more than 2,000 members$"):
        await sandbox.check(many_files(2001))
    assert list(outside.iterdir()) == []

    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.sh").write_text('echo "$HOME" >&2; pwd >&2; ls >&2\n')
    summary = await sandbox.check(pack(folder).data)
    assert (summary.files, summary.folders) == (1, 0)
    started = await sandbox.start(["sh", "bot.sh"], pack(folder).data, str(tmp_path / "socket"), "token")
    assert started.process.stderr is not None
    said = (await asyncio.wait_for(started.process.stderr.read(), 60)).decode().splitlines()
    assert await started.process.wait() == 0, said
    assert started.workdir is not None and said == [str(started.workdir), str(started.workdir), "bot.sh"]
    await started.kill()
    assert not started.workdir.exists(), "the launch's folder is removed with it"
