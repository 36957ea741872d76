"""Card handling shared by actions, effects and reactions: hands, decks, discards, draws."""

from __future__ import annotations

from warroom.games.qmg_sf.content import Card, tables
from warroom.games.qmg_sf.state import SfState


def card(card_id: int) -> Card:
    """A card by id."""
    return tables().cards[card_id]


def use(s: SfState, side: int, card_id: int, public: bool) -> None:
    """Discard a card from a hand face down; `public` when used for its text or reaction."""
    s.hands[side].remove(card_id)
    s.discards[side].append(card_id)
    if public:
        s.revealed[side].append(card_id)


def draw(s: SfState, side: int, count: int) -> int:
    """Draw up to `count` cards from the top of the draw deck; how many were drawn."""
    n = min(count, len(s.decks[side]))
    for _ in range(n):
        s.hands[side].append(s.decks[side].pop())
    return n


def reactions(s: SfState, side: int, reaction: str, factions: int) -> list[int]:
    """Cards in hand with this reaction whose faction is in the bitmask `factions`."""
    out = []
    for c in s.hands[side]:
        info = tables().cards[c]
        if info.reaction == reaction and factions >> info.faction & 1:
            out.append(c)
    return sorted(set(out))
