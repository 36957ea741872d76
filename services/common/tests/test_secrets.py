"""Keys: refused when unsafe outside development mode, separate per role, rotatable."""

from __future__ import annotations

import os
import secrets
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from services.common import keys
from services.common.auth import bot_seat_token, bot_seat_tokens, is_service_call
from services.common.keys import InsecureSecretsError
from services.common.server import start_server
from services.common.settings import Settings
from services.lobby.auth import TokenError, issue_token, read_token
from warroom.platform.secretfile import ensure_secrets, read_file

ROOT = Path(__file__).resolve().parents[3]


def strong() -> str:
    return secrets.token_urlsafe(32)


def production(**overrides: str) -> Settings:
    values = {
        "service_secret": strong(),
        "bot_token_secret": strong(),
        "player_token_secret": strong(),
        **overrides,
    }
    return Settings(env="production", **values)  # type: ignore[arg-type]


def test_strong_separate_keys_are_accepted() -> None:
    settings = production()
    settings.check_secrets()
    assert settings.service_keys().current != settings.bot_token_keys().current
    assert settings.player_token_keys().current != settings.service_keys().current


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("service_secret", "", "is not set"),
        ("service_secret", "warroom-dev-insecure-service-secret", "publicly known default"),
        ("service_secret", "change-me-in-production", "publicly known default"),
        ("bot_token_secret", "change-me", "publicly known default"),
        ("player_token_secret", "please-CHANGE-ME-0123456789abcdefghijkl", "placeholder"),
        ("bot_token_secret", "Ab3-short", "too short"),
        ("player_token_secret", "a" * 40, "too few distinct characters"),
    ],
)
def test_unsafe_keys_refuse_to_start_with_a_hint(field: str, value: str, why: str) -> None:
    settings = production(**{field: value})
    with pytest.raises(InsecureSecretsError) as raised:
        settings.check_secrets()
    message = str(raised.value)
    assert why in message
    assert keys.ROLES[[r.field for r in keys.ROLES].index(field)].variable in message
    assert "secrets.token_urlsafe(32)" in message


def test_one_key_for_two_roles_is_refused() -> None:
    shared = strong()
    with pytest.raises(InsecureSecretsError, match="same key as WARROOM_SERVICE_SECRET"):
        production(service_secret=shared, bot_token_secret=shared).check_secrets()


def test_a_weak_retired_key_is_refused() -> None:
    with pytest.raises(InsecureSecretsError, match="PREVIOUS entry 2"):
        production(service_secret_previous=f"{strong()},change-me").check_secrets()


def test_production_never_falls_back_to_a_built_in_key() -> None:
    settings = Settings(env="production", service_secret=strong())
    with pytest.raises(InsecureSecretsError, match="WARROOM_BOT_TOKEN_SECRET"):
        settings.bot_token_keys()
    with pytest.raises(InsecureSecretsError, match="WARROOM_PLAYER_TOKEN_SECRET"):
        settings.player_token_keys()


def test_development_mode_accepts_the_built_in_keys() -> None:
    settings = Settings(env="development", service_secret="", bot_token_secret="")
    settings.check_secrets()
    assert settings.service_keys().current == keys.DEV_SERVICE_SECRET.encode()
    assert settings.bot_token_key() == settings.secret()


def test_service_credential_rotation_accepts_current_and_previous() -> None:
    old, new = strong(), strong()
    settings = production(service_secret=new, service_secret_previous=old)
    assert is_service_call((("authorization", f"Bearer {new}"),), settings)
    assert is_service_call((("authorization", f"Bearer {old}"),), settings)
    assert not is_service_call((("authorization", f"Bearer {strong()}"),), settings)


def test_bot_token_rotation_keeps_the_old_tokens_valid() -> None:
    old, new = strong(), strong()
    settings = production(bot_token_secret=new, bot_token_secret_previous=old)
    tokens = bot_seat_tokens(settings, "g" * 32, 1)
    assert tokens[0] == bot_seat_token(new.encode(), "g" * 32, 1), "the current key signs"
    assert bot_seat_token(old.encode(), "g" * 32, 1) in tokens
    other = production()
    assert bot_seat_token(other.bot_token_key(), "g" * 32, 1) not in tokens


def test_player_token_rotation_keeps_the_old_tokens_valid() -> None:
    old, new = strong(), strong()
    settings = production(player_token_secret=new, player_token_secret_previous=old)
    ring = settings.player_token_keys().all()
    signed_old, _ = issue_token(old.encode(), "p1", "Ney", False, 60)
    signed_new, _ = issue_token(new.encode(), "p2", "Ney", False, 60)
    assert read_token(ring, signed_old).player_id == "p1"
    assert read_token(ring, signed_new).player_id == "p2"
    forged, _ = issue_token(
        keys.dev_player_key(keys.DEV_SERVICE_SECRET.encode()), "p3", "x", False, 60
    )
    with pytest.raises(TokenError, match="Signature"):
        read_token(ring, forged)


def test_the_lobby_token_variable_still_names_the_player_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    value = strong()
    monkeypatch.setenv("WARROOM_LOBBY_TOKEN_SECRET", value)
    assert Settings().player_token_keys().current == value.encode()


async def test_start_server_refuses_unsafe_keys() -> None:
    with pytest.raises(InsecureSecretsError):
        await start_server(Settings(env="production"), port=0, service_names=["x.Y"], register=[])


def _production_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARROOM_")}
    env.update(WARROOM_ENV="production", WARROOM_SERVICE_SECRET="change-me-in-production")
    env["PYTHONPATH"] = str(ROOT)
    return env


@pytest.mark.parametrize(
    "argv",
    [
        ["-m", "services.bots"],
        ["-m", "celery", "-A", "services.common.celery_app", "worker", "-Q", "bots", "-P", "solo"],
    ],
    ids=["bots", "worker"],
)
def test_a_process_with_a_default_key_exits_at_once(argv: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, *argv],
        cwd=ROOT,
        env=_production_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2, result.stderr[-2000:]
    assert "publicly known default" in result.stderr
    assert "secrets.token_urlsafe(32)" in result.stderr


def test_make_run_generates_private_keys_once(tmp_path: Path) -> None:
    found, generated = ensure_secrets(tmp_path, {})
    assert (
        set(generated)
        == set(found)
        == {
            "WARROOM_SERVICE_SECRET",
            "WARROOM_BOT_TOKEN_SECRET",
            "WARROOM_PLAYER_TOKEN_SECRET",
        }
    )
    path = tmp_path / "secrets.env"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_file(path) == found
    fields: dict[str, Any] = {k.removeprefix("WARROOM_").lower(): v for k, v in found.items()}
    Settings(env="production", **fields).check_secrets()
    again, generated_again = ensure_secrets(tmp_path, {})
    assert again == found and generated_again == []
    mine = strong()
    kept, _ = ensure_secrets(tmp_path, {"WARROOM_SERVICE_SECRET": mine})
    assert "WARROOM_SERVICE_SECRET" not in kept, "a key from the environment wins"
