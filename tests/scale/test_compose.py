"""docker-compose.yml and the Dockerfile, checked without a Docker engine: the file's structure, and
`docker compose config` / `docker-compose config` when such a binary is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml


@pytest.fixture(scope="module")
def compose(repo_root: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((repo_root / "docker-compose.yml").read_text())
    return data


def test_redis_keeps_an_append_only_file_on_a_named_volume(compose: dict[str, Any]) -> None:
    redis = compose["services"]["redis"]
    command = redis["command"]
    assert command[0] == "redis-server"
    assert command[command.index("--appendonly") + 1] == "yes"
    assert "redis-data:/data" in redis["volumes"]
    assert "redis-data" in compose["volumes"]
    assert redis["healthcheck"]["test"][-1] == "ping"


def test_arena_nodes_scale_share_the_redis_and_need_an_admin_token(compose: dict[str, Any]) -> None:
    arena = compose["services"]["arena"]
    assert arena["build"] == "."
    command = arena["command"]
    assert command[:2] == ["arena", "serve"]
    assert command[command.index("--redis-url") + 1] == "redis://redis:6379/0"
    assert command[command.index("--host") + 1] == "0.0.0.0"
    assert "container_name" not in arena, "a fixed container name would stop --scale"
    assert all(":" not in str(port) for port in arena["ports"]), "a fixed host port would stop --scale"
    assert {str(port) for port in arena["ports"]} == {"50051", "8080"}, "gRPC and the web UI are published"
    assert arena["depends_on"]["redis"]["condition"] == "service_healthy"
    assert "${ARENA_ADMIN_TOKEN:?" in arena["environment"]["ARENA_ADMIN_TOKEN"]


def test_sample_bots_connect_to_the_arena_service_with_tokens_from_the_environment(
    compose: dict[str, Any], repo_root: Path
) -> None:
    bots = {name: service for name, service in compose["services"].items() if name.endswith("-bot")}
    assert set(bots) == {"random-bot", "heuristic-bot", "node-bot"}
    for service in bots.values():
        assert service["profiles"] == ["bots"]
        assert service["environment"]["ARENA_SERVER"].endswith("arena:50051")
        assert service["environment"]["ARENA_TOKEN"].startswith("${")
    for name in ("random-bot", "heuristic-bot"):
        script = bots[name]["command"][1]
        assert (repo_root / script).is_file(), script
    for volume in bots["node-bot"]["volumes"]:
        assert (repo_root / volume.split(":")[0]).exists(), volume


def test_the_image_installs_the_arena_and_serves_on_all_interfaces(repo_root: Path) -> None:
    dockerfile = (repo_root / "Dockerfile").read_text()
    assert dockerfile.startswith("# ") and "\nFROM python:3.11" in dockerfile
    assert "RUN pip install ." in dockerfile
    assert '"--host", "0.0.0.0"' in dockerfile and "EXPOSE 50051 8080" in dockerfile
    for line in dockerfile.splitlines():
        if line.startswith("COPY "):
            for source in line.split()[1:-1]:
                assert (repo_root / source).exists(), source
    ignored = (repo_root / ".dockerignore").read_text().split()
    assert ".git" in ignored and "sample_bots/node/node_modules" in ignored


def test_compose_itself_accepts_the_file(repo_root: Path) -> None:
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        command = ["docker", "compose"]
    elif shutil.which("docker-compose"):
        command = ["docker-compose"]
    else:
        pytest.skip("neither `docker compose` nor docker-compose is installed")
    env = {**os.environ, "ARENA_ADMIN_TOKEN": "ata_compose-check"}
    check = [*command, "-f", str(repo_root / "docker-compose.yml"), "config", "--quiet"]
    checked = subprocess.run(check, capture_output=True, text=True, env=env, timeout=60)
    assert checked.returncode == 0, checked.stderr
    without_token = {key: value for key, value in os.environ.items() if key != "ARENA_ADMIN_TOKEN"}
    missing = subprocess.run(check, capture_output=True, text=True, env=without_token, timeout=60)
    assert missing.returncode != 0 and "ARENA_ADMIN_TOKEN" in missing.stderr


def test_the_hosted_node_gets_exactly_the_capabilities_the_sandbox_was_shown_to_need(
    compose: dict[str, Any], repo_root: Path
) -> None:
    from tests.hosted.test_host_requirements import LEAST

    hosted = compose["services"]["arena-hosted"]
    assert hosted["profiles"] == ["hosted"]
    assert hosted["user"] == "root"
    assert hosted["cap_drop"] == ["ALL"]
    assert sorted(name.lower() for name in hosted["cap_add"]) == sorted(LEAST)
    assert "privileged" not in hosted
    assert hosted["command"] == compose["services"]["arena"]["command"]
    assert "bubblewrap" in (repo_root / "Dockerfile").read_text()


def test_prometheus_scrapes_every_arena_replica_on_its_metrics_port(compose: dict[str, Any], repo_root: Path) -> None:
    prometheus = compose["services"]["prometheus"]
    assert prometheus["profiles"] == ["metrics"]
    assert "./deploy/prometheus:/etc/prometheus:ro" in prometheus["volumes"]
    config = yaml.safe_load((repo_root / "deploy" / "prometheus" / "prometheus.yml").read_text())
    [job] = config["scrape_configs"]
    [discovery] = job["dns_sd_configs"]
    assert discovery["type"] == "A" and "arena" in discovery["names"]
    for name in ("arena", "arena-hosted"):
        assert compose["services"][name]["environment"]["ARENA_METRICS_PORT"] == str(discovery["port"])
    assert config["rule_files"] == ["/etc/prometheus/alerts.yml"]


def test_every_alert_speaks_of_metrics_the_arena_exports(repo_root: Path) -> None:
    import re

    from prometheus_client import REGISTRY

    from arena import metrics  # noqa: F401 - registers the arena's metrics

    suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum"), "gauge": ("",)}
    exported = {family.name + end for family in REGISTRY.collect() for end in suffixes.get(family.type, ("",))}
    rules = yaml.safe_load((repo_root / "deploy" / "prometheus" / "alerts.yml").read_text())
    alerts = [rule for group in rules["groups"] for rule in group["rules"]]
    assert len(alerts) >= 6
    operations = (repo_root / "docs" / "OPERATIONS.md").read_text()
    for rule in alerts:
        named = set(re.findall(r"\barena_[a-z_]+", rule["expr"]))
        assert named <= exported, f"{rule['alert']} names {named - exported}, which no node exports"
        assert rule["alert"] in operations, f"docs/OPERATIONS.md does not explain {rule['alert']}"
