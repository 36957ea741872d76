"""The warroom-fuzz command runs playouts and fails loudly on a fault."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from warroom.engine import registry
from warroom.engine.fuzz_cli import app


@pytest.fixture(autouse=True)
def private_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Games the command registers here stay out of the registry other tests see."""
    monkeypatch.setattr(registry, "_GAMES", dict(registry._GAMES))
    yield
    registry.get_rules.cache_clear()


TOY = "toy=tests.engine.toy_game:ToyRules"


def test_fuzz_command_passes_a_sound_game() -> None:
    result = CliRunner().invoke(app, ["--game", "toy", "--games", "10", "--plugin", TOY])
    assert result.exit_code == 0, result.output
    assert "all 10 playouts passed" in result.output


def test_fuzz_command_exits_nonzero_on_a_leak() -> None:
    leaky = "toy-leaky=tests.engine.test_fuzz_cli:LeakyToy"
    args = ["--game", "toy-leaky", "--games", "5", "--plugin", leaky]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    assert "views" in result.output


from tests.engine.toy_game import ToyRules  # noqa: E402


class LeakyToy(ToyRules):
    """The toy game with its view leak always on."""

    def setup(self, seed, variant, options):  # type: ignore[no-untyped-def]
        return super().setup(seed, variant, {"leak": "1"})
