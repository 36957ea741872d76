"""Colours that do not rely on red/green alone: what the board tells apart by colour only must
stay apart for protanopes and deuteranopes, and every controlled space names its owner.

Colour-vision deficiency is simulated with the Machado, Oliveira and Fernandes (2009)
matrices at full severity in linear RGB; two colours are told apart when their CIE L*a*b*
distance (ΔE*76) after the simulation is at least `MIN_DELTA_E`. A red/green pair such as
#d62728/#2ca02c comes out at 7, the Okabe-Ito colours the board uses at 17 or more.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

from playwright.sync_api import Page

MIN_DELTA_E = 15.0
NO_OWNER = {"#999", "#999999"}
MACHADO = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
}

BOARD_JS = """() => {
  const pieces = [...document.querySelectorAll('[data-testid="board"] .piece')].map(p => {
    const shape = p.querySelector('circle, rect, path');
    const d = shape.getAttribute('d') || '';
    return {glyph: (p.querySelector('.piece-glyph')?.textContent || '').trim(),
            shape: shape.tagName + (d.match(/L/g) || []).length,
            colour: (shape.getAttribute('fill') || '').toLowerCase()};
  });
  const owned = [...document.querySelectorAll('[data-testid="board"] .owner-ring')].map(r =>
      (r.parentElement.querySelector('.owner-glyph')?.textContent || '').trim());
  return {pieces, owned};
}"""


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _lab(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = rgb
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


def _rgb(colour: str) -> tuple[int, int, int]:
    hexa = colour.lstrip("#")
    if len(hexa) == 3:
        hexa = "".join(c * 2 for c in hexa)
    return int(hexa[0:2], 16), int(hexa[2:4], 16), int(hexa[4:6], 16)


def seen_apart(a: str, b: str) -> float:
    """The smallest ΔE*76 between two colours as protanopes and deuteranopes see them."""
    linear = [_linear(c) for c in _rgb(a)], [_linear(c) for c in _rgb(b)]
    worst = math.inf
    for matrix in MACHADO.values():
        labs = []
        for value in linear:
            sim = tuple(
                min(1.0, max(0.0, sum(row[k] * value[k] for k in range(3)))) for row in matrix
            )
            labs.append(_lab(sim))  # type: ignore[arg-type]
        worst = min(worst, math.dist(labs[0], labs[1]))
    return worst


def problems(page: Page) -> list[str]:
    """What on the board is told apart by a red/green-prone colour alone (empty: nothing)."""
    board = page.evaluate(BOARD_JS)
    found = []
    by_look: dict[tuple[str, str], set[str]] = defaultdict(set)
    for piece in board["pieces"]:
        if not piece["glyph"]:
            found.append(f"a piece without a glyph: {piece}")
        if piece["colour"] not in NO_OWNER:
            by_look[(piece["glyph"], piece["shape"])].add(piece["colour"])
    for look, colours in by_look.items():
        for a, b in itertools.combinations(sorted(colours), 2):
            if seen_apart(a, b) < MIN_DELTA_E:
                found.append(f"pieces {look} differ only by {a} / {b} (ΔE {seen_apart(a, b):.1f})")
    found += [
        f"{n} controlled spaces without an owner glyph" for n in [board["owned"].count("")] if n
    ]
    return found
