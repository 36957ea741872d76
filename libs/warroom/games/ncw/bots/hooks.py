"""Variant hooks the core's setup and turn flow calls (rulebook 6.2-6.3, 6.8-6.10).

This module implements the rules' `seam.VariantHooks`; the bots package installs it into
the seam when imported, so the core reaches the variants without importing them. Each hook
works on the working copy of the state it is given. In the 4-player game every hook is a
no-op or returns the base-game value, so the core may call them unconditionally.
"""

from __future__ import annotations

from collections.abc import Mapping

from warroom.games.ncw import content
from warroom.games.ncw import ops as O
from warroom.games.ncw.bots import variants as V
from warroom.games.ncw.bots.data import POWERS, tables
from warroom.games.ncw.seam import is_bot
from warroom.games.ncw.state import EVENT, NcwState, Play, replaced

MB_LEVEL_OF_POSITION = {1: 1, 2: 1, 3: 2, 4: 2, 5: 3}


def on_setup(s: NcwState, options: Mapping[str, str]) -> None:
    """After the base setup: difficulty, bot deployments (6.3), open padlocks, bot vetoes.

    Raises SetupError for an unknown option or difficulty.
    """
    vs = V.variant_setup(s.variant, options)
    s.flags, s.access, s.vetoes = dict(s.flags), s.access.copy(), s.vetoes.copy()
    s.flags["difficulty"] = vs.difficulty
    if vs.objectives_needed != content.tables().setup.objectives_for_victory:
        s.flags["objectives_needed"] = vs.objectives_needed
    if not vs.objectives_award_vp:
        s.flags["objectives_no_vp"] = 1
    for p, countries in vs.bot_deployments.items():
        for c in countries:
            s.control[c] = p
    for p, regions in vs.open_padlocks.items():
        for r in regions:
            s.access[p] |= 1 << r
    for p, bits in vs.bot_vetoes.items():
        s.vetoes[p] = bits
    for p, values in vs.ally_veto_values.items():
        for value in values:
            key = f"ally_veto_{value}:{p}"
            s.flags[key] = s.flags.get(key, 0) + 1


def deploy_options(s: NcwState, p: int) -> dict[str, tuple[int, ...]] | None:
    """A human power's deployment options in this variant (None: the base game's 3.5 table).

    Bots never deploy by decision (their 6.3 deployment is placed by `on_setup`): {}.
    """
    if is_bot(s, p):
        return {}
    record = V.variant(s.variant)
    if not record.deployments:
        return None
    vs = V.variant_setup(s.variant, {"difficulty": _difficulty_name(s)})
    return dict(vs.human_deployments.get(p, {})) or None


def _difficulty_name(s: NcwState) -> str:
    return ("beginner", "intermediate", "expert")[V.difficulty(s)]


def hand_size(s: NcwState, p: int) -> int:
    """Cards dealt to p at the start of a turn (6.8, 6.9, 6.10)."""
    record = V.variant(s.variant)
    if not is_bot(s, p):
        return record.cards_per_human
    if record.bot_hand == "gifted":
        return 1
    return 3


def gift_due(s: NcwState, stage: str) -> bool:
    """Whether humans give a card to a bot now: stage "before_exchange" or "after_leftover".

    3 players: every turn, after any leftover exchange (turns 3, 6, 9) and before the allies'
    exchange (other turns). Solitaire: every turn, before play.
    """
    record = V.variant(s.variant)
    if record.bot_hand not in ("gifted", "solitaire"):
        return False
    leftover_turn = s.turn in content.tables().setup.leftover_exchange_turns
    if stage == "after_leftover":
        return leftover_turn or record.bot_hand == "solitaire"
    return stage == "before_exchange" and not leftover_turn and record.bot_hand == "gifted"


def gift_givers(s: NcwState) -> list[int]:
    """The human powers that give a card this turn."""
    return [p for p in range(4) if not is_bot(s, p) and s.hands[p]]


def gift_target(s: NcwState, p: int) -> int:
    """The bot that receives p's gift: the 3-player bot, or the solitaire turn's bot (6.10)."""
    record = V.variant(s.variant)
    if record.bot_hand == "solitaire":
        return V.solitaire_gift_target(s.turn, p)
    return next(q for q in range(4) if is_bot(s, q))


def gift_options(s: NcwState, p: int) -> list[tuple[str, str]]:
    """p's gift options: any card but a crisis card (6.8)."""
    cards = content.tables().cards
    target = POWERS[gift_target(s, p)]
    return [
        (f"gift:{n}", f"Give {cards[n].name} to the {target} bot")
        for n in s.hands[p]
        if not cards[n].crisis
    ]


def apply_gift(s: NcwState, p: int, option: str) -> None:
    """Move the chosen card from p's hand to the bot's (the caller clears p's pending bit)."""
    n = int(option.partition(":")[2])
    s.hands[p] = [x for x in s.hands[p] if x != n]
    target = gift_target(s, p)
    s.hands[target] = sorted([*s.hands[target], n])


def leftover_exchange_allowed(s: NcwState) -> bool:
    """Whether anyone may exchange with the leftover pile in this variant (none in solitaire)."""
    return V.variant(s.variant).leftover_exchange


def leftover_goes_to_discard(s: NcwState, p: int) -> bool:
    """Whether p's card left at the end of a turn goes to the discard pile (solitaire bots, 6.10)."""
    return is_bot(s, p) and V.variant(s.variant).bot_hand == "solitaire"


def on_turn_start(s: NcwState) -> list[str]:
    """The bots' special benefits (6.2.2), in the order of play; returns log lines.

    A China frozen by 18-Chinese Dissent gets no prestige or media reserve benefit (Annex III).
    """
    if not s.bots:
        return []
    benefits = V.special_benefits(s.turn, V.difficulty(s))
    lines: list[str] = []
    for p in O.precedence(s):
        if not is_bot(s, p):
            continue
        for benefit in benefits:
            if benefit == "op_reserve":
                O.gain_op_reserve(s, p)
            elif O.tracks_frozen(s, p):
                continue
            elif benefit == "prestige":
                O.change_prestige(s, p, 1)
            else:
                O.gain_media_reserve(s, p)
            lines.append(f"{POWERS[p]} bot: {benefit.replace('_', ' ')} (6.2.2)")
    return lines


def bot_place(s: NcwState, p: int) -> Play | None:
    """The bot's play this round (6.8-6.10): a random card by the game RNG, event or OPs by 6.4.

    The bot always puts its OP reserve on this card (6.6 step 4). Removes the card from its hand.
    """
    if not s.hands[p]:
        return None
    n = V.bot_card_order(s, p)
    s.hands[p] = [x for x in s.hands[p] if x != n]
    mode = V.bot_play_mode(s, p, n)
    reserve = s.op_reserve[p] == 1
    if reserve:
        s.op_reserve = replaced(s.op_reserve, p, 0)
    stats = content.tables().cards[n]
    value = stats.ops + (1 if reserve else 0)
    return Play(p, n, mode, reserve, order_value=min(4, value) if reserve else value)


def place_option(s: NcwState, p: int, options: list[str]) -> str:
    """A bot's answer to a "place" decision ({card}{e|o}[r] options) for the `ncw-official` chooser."""
    cards = content.tables().cards
    hand = sorted({int(o.rstrip("r")[:-1]) for o in options})
    rounds_left = max(1, 3 - s.round)
    index, s.rng = V.bot_pick_card(hand, rounds_left, s.rng, [cards[n].crisis for n in hand])
    n = hand[index]
    mode = "e" if V.bot_play_mode(s, p, n) == EVENT else "o"
    for wanted in (f"{n}{mode}r", f"{n}{mode}", f"{n}or", f"{n}o", f"{n}er", f"{n}e"):
        if wanted in options:
            return wanted
    return options[0]


def region_reward(s: NcwState, p: int, r: int, base: int) -> int:
    """The reward p scores for controlling region r: the bot table for bots (6.2.1.1)."""
    if not is_bot(s, p):
        return base
    return V.bot_region_reward(p, r, V.difficulty(s), s.turn, base)


def bot_victors(s: NcwState) -> list[int]:
    """Bots with an automatic victory at the end of this turn (6.1; turns 1-8)."""
    return [p for p in range(4) if is_bot(s, p) and V.bot_automatic_victory(s, p)]


def objectives_needed(s: NcwState) -> int:
    """Objectives a human needs for an automatic victory (solitaire: 2/3/4 by difficulty)."""
    return s.flags.get("objectives_needed", content.tables().setup.objectives_for_victory)


def objectives_award_vp(s: NcwState) -> bool:
    """Whether declaring an objective scores its VPs (not in solitaire, 6.10)."""
    return not s.flags.get("objectives_no_vp", 0)


def media_level(s: NcwState) -> int:
    """The core's media-benefit level (1-3) of the current media position."""
    return MB_LEVEL_OF_POSITION.get(abs(s.media), 0)


def bot_names() -> tuple[str, ...]:
    """Powers that have official bot tables."""
    return tuple(tables().powers)
