"""deploy/k8s, rendered by `kubectl kustomize` (no cluster runs here): nodes as a Deployment with probes
that follow the store, every setting one that `arena serve` reads, and the Redis reached through Sentinel."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from arena.store import sentinel

pytestmark = pytest.mark.kubectl


@pytest.fixture(scope="module")
def rendered(repo_root: Path) -> dict[str, dict[str, Any]]:
    kubectl = shutil.which("kubectl") or "kubectl"  # the `kubectl` marker skips or fails the tests without it
    done = subprocess.run(
        [kubectl, "kustomize", str(repo_root / "deploy" / "k8s")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return {f"{doc['kind']}/{doc['metadata']['name']}": doc for doc in yaml.safe_load_all(done.stdout)}


@pytest.fixture(scope="module")
def serve_help() -> str:
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "serve", "--help"],
        capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return " ".join(done.stdout.split())


def container(rendered: dict[str, dict[str, Any]]) -> dict[str, Any]:
    pods = rendered["Deployment/arena"]["spec"]["template"]["spec"]
    (only,) = pods["containers"]
    return dict(only)


def test_nodes_are_a_deployment_ready_only_while_their_store_answers(rendered: dict[str, dict[str, Any]]) -> None:
    node = container(rendered)
    ports = {port["name"]: port["containerPort"] for port in node["ports"]}
    assert node["readinessProbe"]["grpc"]["port"] == ports["grpc"] == 50051
    assert node["startupProbe"]["grpc"]["port"] == ports["grpc"]
    assert node["livenessProbe"]["tcpSocket"]["port"] == "grpc", "a node without Redis is not restarted"
    command = node["command"]
    assert command[command.index("--port") + 1] == str(ports["grpc"])
    assert command[command.index("--http-port") + 1] == str(ports["http"])
    assert rendered["Deployment/arena"]["spec"]["replicas"] >= 2


def test_every_setting_is_one_arena_serve_reads(rendered: dict[str, dict[str, Any]], serve_help: str) -> None:
    node = container(rendered)
    names = set(rendered["ConfigMap/arena-config"]["data"]) | {entry["name"] for entry in node["env"]}
    for name in names:
        assert f"env {name}" in serve_help or name == "ARENA_ADMIN_TOKEN_FILE", f"arena serve reads no {name}"
    flags = [word for word in node["command"] if word.startswith("--")]
    for flag in flags:
        assert re.search(rf"{flag}\b", serve_help), f"arena serve has no {flag}"
    env = {entry["name"]: entry for entry in node["env"]}
    assert env["ARENA_NODE"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    token_file = Path(env["ARENA_ADMIN_TOKEN_FILE"]["value"])
    mounts = {mount["name"]: mount["mountPath"] for mount in node["volumeMounts"]}
    assert str(token_file.parent) == mounts["admin-token"]


def test_redis_is_reached_through_sentinel_and_logs_are_json(rendered: dict[str, dict[str, Any]]) -> None:
    data = rendered["ConfigMap/arena-config"]["data"]
    parsed = sentinel.parse(data["ARENA_REDIS_URL"])
    assert len(parsed.sentinels) == 3 and parsed.replicas >= 1
    assert data["ARENA_LOG_FORMAT"] == "json"


def test_services_and_the_disruption_budget_select_the_nodes(rendered: dict[str, dict[str, Any]]) -> None:
    labels = rendered["Deployment/arena"]["spec"]["template"]["metadata"]["labels"]
    assert rendered["Deployment/arena"]["spec"]["selector"]["matchLabels"].items() <= labels.items()
    for name in ("Service/arena", "Service/arena-nodes"):
        assert rendered[name]["spec"]["selector"].items() <= labels.items(), name
    assert rendered["Service/arena-nodes"]["spec"]["clusterIP"] == "None"
    assert rendered["PodDisruptionBudget/arena"]["spec"]["selector"]["matchLabels"].items() <= labels.items()
    claim = rendered["PersistentVolumeClaim/arena-archive"]["spec"]
    assert claim["accessModes"] == ["ReadWriteMany"], "every node reads the archive"
