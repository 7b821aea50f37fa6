"""The ports the tests give their servers: below the kernel's ephemeral range, where no outgoing
connection of another process can take one between the check and the server's bind; one slice a worker."""

from __future__ import annotations

import socket

import pytest

from tests.ports import LOWEST, ephemeral_start, free_port, worker_slice


def test_a_free_port_is_below_the_ephemeral_range_in_this_workers_slice_and_can_be_listened_on() -> None:
    ports = {free_port() for _ in range(20)}
    assert all(LOWEST <= port < ephemeral_start() and port in worker_slice() for port in ports)
    assert len(ports) > 1, "always the same port: a second server would find it taken"
    with socket.socket() as server:
        server.bind(("127.0.0.1", ports.pop()))
        server.listen()


def test_the_workers_slices_do_not_overlap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "4")
    slices = []
    for index in range(4):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", f"gw{index}")
        slices.append(set(worker_slice()))
    assert all(len(ports) > 1000 for ports in slices)
    assert sum(len(ports) for ports in slices) == len(set().union(*slices))


def test_a_port_in_use_is_not_given(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        monkeypatch.setattr("tests.ports.worker_slice", lambda: range(port, port + 1))
        with pytest.raises(RuntimeError, match=f"no free port on 127.0.0.1 in {port}-{port}"):
            free_port()
