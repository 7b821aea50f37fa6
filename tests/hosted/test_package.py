"""Packages of hosted bots, and the rating of a new version: plain functions, no server."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

from arena.hosted.package import PackageError, pack
from arena.hosted.unpacker import Refused, unpack
from arena.ratings import RatingModel
from arena.ratings.model import Rating
from tests.hosted.conftest import misbehaving


def test_packing_is_deterministic_and_round_trips(tmp_path: Path) -> None:
    folder = misbehaving(tmp_path / "bot", "linger")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "bot.pyc").write_bytes(b"cache")
    one, two = pack(folder), pack(folder)
    assert one.data == two.data and one.sha256 == two.sha256 and one.files == 2
    target = tmp_path / "out"
    target.mkdir()
    folder_fd = os.open(target, os.O_RDONLY | os.O_DIRECTORY)
    try:
        unpack(io.BytesIO(one.data).read, folder_fd)
    finally:
        os.close(folder_fd)
    assert sorted(path.name for path in target.iterdir()) == ["behaviour.txt", "bot.py"]


def test_packing_refuses_empty_and_oversized_folders(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(PackageError, match="holds no files"):
        pack(tmp_path / "empty")
    big = tmp_path / "big"
    big.mkdir()
    (big / "blob").write_bytes(bytes(2000))
    with pytest.raises(PackageError, match=r"holds 0\.0 MB; a hosted bot may hold at most 0\.0 MB"):
        pack(big, limit=1000)


def test_unpacking_refuses_paths_that_leave_the_folder(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("../escape.txt")
        info.size = 2
        archive.addfile(info, io.BytesIO(b"hi"))
    target = tmp_path / "out"
    target.mkdir()
    folder_fd = os.open(target, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.raises(Refused, match=r"the package member '\.\./escape\.txt' has '\.\.' in its path"):
            unpack(io.BytesIO(buffer.getvalue()).read, folder_fd)
    finally:
        os.close(folder_fd)
    assert not (tmp_path / "escape.txt").exists()


def test_a_new_version_widens_sigma_but_never_past_the_initial_one() -> None:
    model = RatingModel()
    settled = model.widened(Rating(30.0, 1.0))
    assert settled.mu == 30.0 and 1.0 < settled.sigma < model.sigma
    assert model.widened(model.initial()) == model.initial()
