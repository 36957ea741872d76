"""The rules reach the variants' bot seats through their seam, installed by the bots package."""

from __future__ import annotations

import subprocess
import sys

from warroom.games.ncw import rules, seam
from warroom.games.ncw.bots import hooks


def test_the_rules_entry_point_installs_the_bot_hooks() -> None:
    assert rules.NewColdWarRules.game_id == "ncw"
    assert seam.hooks is hooks


def test_an_uninstalled_seam_refuses_with_the_fix() -> None:
    code = (
        "from warroom.games.ncw import flow, seam\n"
        "try:\n"
        "    seam.hooks.hand_size\n"
        "except RuntimeError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "not installed" in done.stdout and "warroom.games.ncw.rules" in done.stdout
