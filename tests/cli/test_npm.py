"""The shared `npm ci`: one install per folder at a time, across processes."""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
import threading
from pathlib import Path

from arena.cli import npm


def installed_folder(tmp_path: Path) -> Path:
    (tmp_path / "package-lock.json").write_text("{}")
    (tmp_path / "node_modules").mkdir()
    marker = tmp_path / "node_modules" / ".package-lock.json"
    marker.write_text("{}")
    later = (tmp_path / "package-lock.json").stat().st_mtime + 1
    os.utime(marker, (later, later))
    return tmp_path


def test_packages_older_than_the_lock_file_count_as_missing(tmp_path: Path) -> None:
    folder = installed_folder(tmp_path)
    assert npm.installed(folder)
    marker = folder / "node_modules" / ".package-lock.json"
    earlier = (folder / "package-lock.json").stat().st_mtime - 10
    os.utime(marker, (earlier, earlier))
    assert not npm.installed(folder)
    marker.unlink()
    assert not npm.installed(folder)


def test_an_install_waits_for_the_one_under_way_in_the_same_folder(tmp_path: Path) -> None:
    folder = installed_folder(tmp_path)
    name = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:16]
    done = threading.Event()
    with open(Path(tempfile.gettempdir()) / f"arena-npm-ci-{name}.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as another process's install under way would

        def install() -> None:
            npm.npm_ci(folder)
            done.set()

        waiting = threading.Thread(target=install)
        waiting.start()
        assert not done.wait(0.5), "npm_ci went on while another install held the folder's lock"
    waiting.join(10)
    assert done.is_set(), "npm_ci did not go on once the lock was released"
