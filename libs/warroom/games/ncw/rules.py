"""New Cold War rules (work in progress: see README.md)."""

from __future__ import annotations
