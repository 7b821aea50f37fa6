"""buf lints the protocol and finds no breaking change since its last release (proto/releases).

buf comes from npm (tools/buf, installed here with `npm ci` as on a fresh CI machine). Each check
is also shown failing: a copy of the protos with one field's number changed is breaking, and
one with a badly named message does not lint.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import npm_installed


@pytest.fixture(scope="session")
def buf(repo_root: Path) -> Path:
    """buf from tools/buf, installed (`npm ci`) when missing or stale: npm picks the build for
    this machine among the platform packages listed there."""
    directory = npm_installed(repo_root / "tools" / "buf", "buf (tools/buf)")
    built = sorted((directory / "node_modules" / "@bufbuild").glob("buf-*/bin/buf"))
    if not built:
        pytest.skip("tools/buf installs buf's Linux builds (x64, arm64) only; none fits this machine")
    return built[0]


def last_release(repo_root: Path) -> Path:
    """The newest image in proto/releases (release-N.binpb with the highest N)."""
    images = {
        int(match[1]): path
        for path in (repo_root / "proto" / "releases").glob("release-*.binpb")
        if (match := re.fullmatch(r"release-(\d+)\.binpb", path.name))
    }
    assert images, "proto/releases holds no release-N.binpb"
    return images[max(images)]


def run_buf(buf: Path, workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(buf), *args], cwd=workspace, capture_output=True, text=True, timeout=120)


def copy_of_protos(repo_root: Path, tmp_path: Path) -> Path:
    """A workspace with the same buf.yaml and a copy of proto/ (without the releases)."""
    shutil.copy(repo_root / "buf.yaml", tmp_path / "buf.yaml")
    shutil.copytree(repo_root / "proto", tmp_path / "proto", ignore=shutil.ignore_patterns("releases"))
    return tmp_path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} is not in {path} exactly once"
    path.write_text(text.replace(old, new))


def test_the_protos_pass_buf_lint(buf: Path, repo_root: Path) -> None:
    result = run_buf(buf, repo_root, "lint")
    assert result.returncode == 0, result.stdout + result.stderr


def test_nothing_broke_since_the_last_release(buf: Path, repo_root: Path) -> None:
    release = last_release(repo_root)
    result = run_buf(buf, repo_root, "breaking", "--against", str(release))
    assert result.returncode == 0, f"breaking changes since {release.name}:\n{result.stdout}{result.stderr}"


def test_a_changed_field_number_is_a_breaking_change(buf: Path, repo_root: Path, tmp_path: Path) -> None:
    workspace = copy_of_protos(repo_root, tmp_path)
    edit(workspace / "proto" / "arena" / "v1" / "bot_service.proto", "uint32 action_id = 3;", "uint32 action_id = 7;")
    result = run_buf(buf, workspace, "breaking", "--against", str(last_release(repo_root)))
    assert result.returncode != 0
    assert 'Previously present field "3" with name "action_id" on message "Action" was deleted.' in result.stdout, (
        result.stdout
    )


def test_a_message_moved_to_another_file_is_a_breaking_change(buf: Path, repo_root: Path, tmp_path: Path) -> None:
    """What the FILE rules catch beyond the wire: generated code imports a message from its file."""
    workspace = copy_of_protos(repo_root, tmp_path)
    v1 = workspace / "proto" / "arena" / "v1"
    welcome = "// The server accepted the Hello.\nmessage Welcome {\n"
    text = (v1 / "bot_service.proto").read_text()
    start = text.index(welcome)
    block = text[start : text.index("}\n", start) + 2]
    (v1 / "bot_service.proto").write_text(text.replace(block, ""))
    (v1 / "messages.proto").write_text((v1 / "messages.proto").read_text() + "\n" + block)
    result = run_buf(buf, workspace, "breaking", "--against", str(last_release(repo_root)))
    assert result.returncode != 0
    assert 'Previously present message "Welcome" was deleted from file.' in result.stdout, result.stdout


def test_a_badly_named_message_fails_lint(buf: Path, repo_root: Path, tmp_path: Path) -> None:
    workspace = copy_of_protos(repo_root, tmp_path)
    messages = workspace / "proto" / "arena" / "v1" / "messages.proto"
    messages.write_text(messages.read_text() + "\n// A message named against the style.\nmessage legal_choice {}\n")
    result = run_buf(buf, workspace, "lint")
    assert result.returncode != 0
    assert "legal_choice" in result.stdout and "PascalCase" in result.stdout, result.stdout
