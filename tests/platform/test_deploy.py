"""Deployment files validate offline: docker-compose, the Dockerfile and the kustomize manifests."""

from __future__ import annotations

import copy
import importlib.util
import os
import secrets
import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "infra" / "k8s"
K8S_VERSION = "1.30.0"


# The variables docker-compose.yml requires (it has no default for any secret).
COMPOSE_SECRETS = (
    "POSTGRES_PASSWORD",
    "WARROOM_SERVICE_SECRET",
    "WARROOM_BOT_TOKEN_SECRET",
    "WARROOM_PLAYER_TOKEN_SECRET",
)
# Host ports a client needs; the web gateway's is added with the gateway service.
CLIENT_SERVICES = {"lobby", "game", "bots", "gateway"}


def _compose_config(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("docker-compose")
    assert binary is not None, (
        "docker-compose is not installed: `apt-get install docker-compose` (Debian's package; "
        "no Docker engine needed) - `make setup` should do this"
    )
    clean = {k: v for k, v in os.environ.items() if k not in COMPOSE_SECRETS}
    return subprocess.run(
        [binary, "-f", str(ROOT / "docker-compose.yml"), "config", "-q"],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_docker_compose_config_is_valid() -> None:
    result = _compose_config({name: secrets.token_urlsafe(32) for name in COMPOSE_SECRETS})
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("missing", COMPOSE_SECRETS)
def test_docker_compose_refuses_to_run_without_each_secret(missing: str) -> None:
    env = {name: secrets.token_urlsafe(32) for name in COMPOSE_SECRETS if name != missing}
    result = _compose_config(env)
    assert result.returncode != 0
    assert f"set {missing}, see docs/deploy.md" in result.stderr, result.stderr


def test_docker_compose_publishes_only_client_ports() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services: dict[str, Any] = compose["services"]
    published = {name for name, svc in services.items() if svc.get("ports")}
    assert published <= CLIENT_SERVICES, published - CLIENT_SERVICES
    assert compose["networks"]["backend"]["internal"] is True
    for name in ("redis", "postgres", "worker", "beat", "migrations"):
        nets = services[name].get("networks")
        assert nets == ["backend"], f"{name} must stay on the internal network only: {nets}"
    for name, svc in services.items():
        for port in svc.get("ports", []):
            assert not str(port).startswith(("6379", "5432", "91")), f"{name} publishes {port}"


def test_docker_compose_topology() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services: dict[str, Any] = compose["services"]
    expected = {"redis", "postgres", "migrations", "lobby", "game", "bots", "worker", "beat"}
    assert expected <= set(services), expected - set(services)
    assert services["game"]["deploy"]["replicas"] == 2
    assert services["worker"]["deploy"]["replicas"] == 2
    assert services["beat"]["deploy"]["replicas"] == 1
    for name in ("redis", "postgres", "lobby", "game", "bots", "worker", "beat"):
        assert "healthcheck" in services[name], f"{name} has no healthcheck"
    for name in ("lobby", "game", "bots", "worker", "beat"):
        deps = services[name]["depends_on"]
        assert deps["migrations"]["condition"] == "service_completed_successfully", name
        env = services[name]["environment"]
        assert env["REDIS_URL"].startswith("redis://redis:")
        assert env["DATABASE_URL"].startswith("postgresql+psycopg://")


def test_dockerfile_is_multistage_and_non_root() -> None:
    text = (ROOT / "infra" / "docker" / "Dockerfile").read_text()
    stages = [line for line in text.splitlines() if line.startswith("FROM ")]
    assert len(stages) >= 2, "the Dockerfile should be multi-stage"
    users = [line.split()[1] for line in text.splitlines() if line.startswith("USER ")]
    assert users, "the Dockerfile never switches user"
    assert users[-1].split(":")[0] not in ("root", "0"), "the final image runs as root"
    assert "COPY --from=build" in text


def _documents(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def render_kustomization(directory: Path) -> list[dict[str, Any]]:
    """A small kustomize: resources (files or directories), namespace, labels and images."""
    kustomization = yaml.safe_load((directory / "kustomization.yaml").read_text())
    known = {"apiVersion", "kind", "namespace", "labels", "images", "resources"}
    unknown = set(kustomization) - known
    assert not unknown, f"this renderer does not handle kustomization fields {unknown}"
    out: list[dict[str, Any]] = []
    for entry in kustomization["resources"]:
        path = directory / entry
        docs = render_kustomization(path) if path.is_dir() else _documents(path)
        out.extend(copy.deepcopy(docs))
    namespace = kustomization.get("namespace")
    images = {i["name"]: i for i in kustomization.get("images", [])}
    for doc in out:
        meta = doc.setdefault("metadata", {})
        if namespace and doc["kind"] != "Namespace":
            meta["namespace"] = namespace
        for label in kustomization.get("labels", []):
            meta.setdefault("labels", {}).update(label["pairs"])
            template = doc.get("spec", {}).get("template")
            if template is not None and label.get("includeTemplates", True):
                template.setdefault("metadata", {}).setdefault("labels", {}).update(label["pairs"])
        pod = doc.get("spec", {}).get("template", {}).get("spec", {})
        for container in pod.get("containers", []):
            image = images.get(container["image"].split(":")[0])
            if image:
                container["image"] = f"{image['newName']}:{image['newTag']}"
    return out


@pytest.fixture(scope="module")
def manifests() -> list[dict[str, Any]]:
    return render_kustomization(K8S)


def test_kustomize_output_validates(manifests: list[dict[str, Any]]) -> None:
    errors = []
    for doc in manifests:
        try:
            kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
        except kubernetes_validate.ValidationError as error:
            errors.append(f"{doc['kind']}/{doc['metadata']['name']}: {error.message}")
    assert not errors, "\n".join(errors)


def test_kubectl_kustomize_agrees_when_present(manifests: list[dict[str, Any]]) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        # The offline renderer above is the check; kubectl only cross-checks it.
        assert manifests
        return
    result = subprocess.run(
        [kubectl, "kustomize", str(K8S)], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    theirs = {(d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(result.stdout) if d}
    ours = {(d["kind"], d["metadata"]["name"]) for d in manifests}
    assert theirs == ours


def _by_kind(manifests: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in manifests if d["kind"] == kind}


def test_kubernetes_topology(manifests: list[dict[str, Any]]) -> None:
    deployments = _by_kind(manifests, "Deployment")
    assert set(deployments) == {"lobby", "game", "bots", "worker", "beat", "gateway"}
    for name, port in (("lobby", 50051), ("game", 50052), ("bots", 50053)):
        container = deployments[name]["spec"]["template"]["spec"]["containers"][0]
        for probe in ("readinessProbe", "livenessProbe"):
            assert container[probe]["grpc"]["port"] == port, f"{name} {probe}"
        assert container["command"][-1] == f"services.{name}"
        refs = {
            r.get("configMapRef", r.get("secretRef", {})).get("name") for r in container["envFrom"]
        }
        assert refs == {"warroom-config", "warroom-secrets"}
    assert deployments["beat"]["spec"]["replicas"] == 1
    assert deployments["beat"]["spec"]["strategy"]["type"] == "Recreate"
    services = _by_kind(manifests, "Service")
    assert {"lobby", "game", "bots"} <= set(services)
    assert services["redis"]["spec"]["type"] == "ExternalName"
    assert services["postgres"]["spec"]["type"] == "ExternalName"
    hpas = _by_kind(manifests, "HorizontalPodAutoscaler")
    assert set(hpas) == {"lobby", "game", "bots", "worker", "gateway"}
    for name, hpa in hpas.items():
        assert hpa["spec"]["scaleTargetRef"]["name"] in deployments, name
    config = _by_kind(manifests, "ConfigMap")["warroom-config"]
    assert config["data"]["WARROOM_ENV"] == "production"
    # No secret value ships: the operator creates warroom-secrets (docs/deploy.md).
    assert not _by_kind(manifests, "Secret"), "the kustomization must not ship a Secret"
    assert not any("SECRET" in key for key in config["data"]), "keys belong in the Secret"
    for doc in manifests:
        pod = doc.get("spec", {}).get("template", {}).get("spec")
        if pod is not None:
            assert pod["securityContext"]["runAsNonRoot"] is True, doc["metadata"]["name"]
            assert all(c["image"].startswith("ghcr.io/warroom/warroom:") for c in pod["containers"])
        if doc["kind"] != "Namespace":
            assert doc["metadata"]["namespace"] == "warroom"


def test_gateway_is_deployed_keyless_behind_an_ingress(manifests: list[dict[str, Any]]) -> None:
    gateway = _by_kind(manifests, "Deployment")["gateway"]
    container = gateway["spec"]["template"]["spec"]["containers"][0]
    assert container["command"][-1] == "services.web"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    # The internet-facing process holds no key.
    assert [r for r in container["envFrom"] if "secretRef" in r] == []
    env = {e["name"]: e["value"] for e in container["env"]}
    for name in ("LOBBY", "GAME", "BOTS"):
        assert f"WARROOM_WEB_{name}_ENDPOINT" in env
    services = _by_kind(manifests, "Service")
    for headless in ("lobby-pods", "game-pods"):
        assert services[headless]["spec"]["clusterIP"] == "None"
    ingress = _by_kind(manifests, "Ingress")["gateway"]
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == "gateway" and backend["name"] in services
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["gateway"]
    assert compose["command"] == ["python", "-m", "services.web"]
    assert not any("SECRET" in key for key in compose["environment"])
    assert "healthcheck" in compose


def test_deploy_doc_covers_scaling_and_state() -> None:
    text = (ROOT / "docs" / "deploy.md").read_text().lower()
    for word in ("docker-compose", "kustomize", "scale", "state", "redis", "postgresql", "beat"):
        assert word in text, word


def test_deploy_doc_shows_how_to_create_every_key() -> None:
    text = (ROOT / "docs" / "deploy.md").read_text()
    assert "kubectl -n warroom create secret generic warroom-secrets" in text
    for name in ("REDIS_URL", "DATABASE_URL", *COMPOSE_SECRETS[1:]):
        assert f"--from-literal={name}=" in text, name
    assert "_PREVIOUS" in text and "Rotating a key" in text


def _python_modules(commands: list[list[str]]) -> set[str]:
    """The `X` of every `python -m X` among container commands."""
    return {cmd[cmd.index("-m") + 1] for cmd in commands if cmd[:1] == ["python"] and "-m" in cmd}


def test_every_deployed_python_module_is_runnable(manifests: list[dict[str, Any]]) -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    commands = [s["command"] for s in compose["services"].values() if "command" in s]
    for doc in manifests:
        pod = doc.get("spec", {}).get("template", {}).get("spec", {})
        commands += [c["command"] for c in pod.get("containers", []) if "command" in c]
    modules = _python_modules(commands)
    assert {"services.lobby", "services.game", "services.bots"} <= modules, modules
    for module in sorted(modules):
        spec = importlib.util.find_spec(module)
        assert spec is not None, f"`python -m {module}`: no such module"
        if spec.submodule_search_locations is not None:
            main = importlib.util.find_spec(f"{module}.__main__")
            assert main is not None, f"`python -m {module}`: the package has no __main__"
