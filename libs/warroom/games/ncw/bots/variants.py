"""The variants' own rules (rulebook 6.2-6.3, 6.8-6.10) as data plus pure functions.

The core's setup and turn code calls these: which powers are bots, their deployments,
withdrawn objectives, the deal, vetoes, special benefits, bot region rewards and the bots'
automatic victory. Nothing here mutates a state except `bot_card_order`, which draws from
(and advances) the game RNG stored in the state, so games replay bit for bit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from warroom.engine.errors import SetupError
from warroom.engine.model import VariantInfo
from warroom.engine.rng import randbelow
from warroom.games.ncw import content
from warroom.games.ncw import effects as fx
from warroom.games.ncw import ops as O
from warroom.games.ncw.bots.data import DIFFICULTIES, POWERS, Variant, norm_name, tables
from warroom.games.ncw.state import (
    EVENT,
    OPS,
    VETO_1,
    VETO_2,
    VETO_3,
    VETO_EXTRA,
    NcwState,
)

DEFAULT_DIFFICULTY = "intermediate"
VETO_BIT_OF_VALUE: Mapping[int, int] = {1: VETO_1, 2: VETO_2, 3: VETO_3}
BOT_VETO_ORDER: tuple[tuple[int, int], ...] = ((VETO_1, 1), (VETO_2, 2), (VETO_3, 3))


@dataclass(frozen=True, slots=True)
class VariantSetup:
    """Everything setup needs to know about a variant, as power/country/region indices.

    `human_deployments[p]` maps option letters to country indices and replaces the base
    game's options for that power (absent: the base game's 3.5 options). `bot_deployments[p]`
    is fixed (no choice). `open_padlocks[p]` are regions a power may enter from the start.
    `bot_vetoes` are the veto bits each bot holds; `ally_veto_values` the marker values a
    bot's human ally receives in addition to its own (6.8, 6.9).
    """

    variant: str
    bots: int
    difficulty: int
    bot_deployments: Mapping[int, tuple[int, ...]]
    human_deployments: Mapping[int, Mapping[str, tuple[int, ...]]]
    withdrawn_objectives: tuple[int, ...]
    open_padlocks: Mapping[int, tuple[int, ...]]
    cards_per_human: int
    bot_hand: str
    bot_vetoes: Mapping[int, int]
    ally_veto_values: Mapping[int, tuple[int, ...]]
    ally_exchange: str
    leftover_exchange: bool
    objectives_award_vp: bool
    objectives_needed: int


def _power(name: str) -> int:
    return POWERS.index(name)


@cache
def _country_ids() -> dict[str, int]:
    return {norm_name(c.name): i for i, c in enumerate(content.tables().countries)}


def country_index(name: str) -> int:
    """The core's index of a country named as in the rulebook."""
    return _country_ids()[norm_name(name)]


def region_index(region: str) -> int:
    """The core's index of a region abbreviation."""
    return content.REGION_IDS.index(region)


def variant_infos() -> list[VariantInfo]:
    """Every variant for `NewColdWarRules.variants()`, the 4-player game first."""
    infos: list[VariantInfo] = []
    for variant in tables().variants.values():
        options: dict[str, tuple[str, ...]] = {}
        if variant.bots:
            options["difficulty"] = (DEFAULT_DIFFICULTY, "beginner", "expert")
        infos.append(
            VariantInfo(
                id=variant.id,
                description=variant.description,
                seats=4,
                sides=POWERS,
                bot_seats=tuple(sorted(_power(b) for b in variant.bots)),
                options=options,
            )
        )
    return infos


def variant(variant_id: str) -> Variant:
    """The variant record; raises SetupError for an unknown id."""
    found = tables().variants.get(variant_id)
    if found is None:
        known = ", ".join(tables().variants)
        raise SetupError(f"ncw: unknown variant {variant_id!r} (known: {known})")
    return found


def difficulty_of(variant_id: str, options: Mapping[str, str]) -> int:
    """The difficulty index (0 beginner, 1 intermediate, 2 expert); raises SetupError on a bad option."""
    record = variant(variant_id)
    unknown = set(options) - ({"difficulty"} if record.bots else set())
    if unknown:
        raise SetupError(f"ncw: variant {variant_id!r} has no option {sorted(unknown)[0]!r}")
    name = options.get("difficulty", DEFAULT_DIFFICULTY)
    if name not in DIFFICULTIES:
        raise SetupError(f"ncw: difficulty must be one of {', '.join(DIFFICULTIES)}, not {name!r}")
    return DIFFICULTIES.index(name)


def variant_setup(variant_id: str, options: Mapping[str, str]) -> VariantSetup:
    """The variant's setup adjustments for `setup(seed, variant, options)`."""
    record = variant(variant_id)
    level = difficulty_of(variant_id, options)
    difficulty = DIFFICULTIES[level]
    bots = 0
    for name in record.bots:
        bots |= 1 << _power(name)
    bot_deployments = {
        _power(name): tuple(country_index(c) for c in tables().powers[name].deployment[difficulty])
        for name in record.bots
    }
    human: dict[int, dict[str, tuple[int, ...]]] = {}
    for name, choices in record.deployments.items():
        per_option: dict[str, tuple[int, ...]] = {}
        for letter, listed in choices.items():
            names = listed[difficulty] if isinstance(listed, dict) else listed
            per_option[letter] = tuple(country_index(c) for c in names)
        human[_power(name)] = per_option
    padlocks: dict[int, tuple[int, ...]] = {
        _power(name): tuple(region_index(r) for r in regions)
        for name, regions in record.open_padlocks.items()
    }
    grant = tables().variants_doc.bot_africa_access
    if grant.power in record.bots:
        key = _power(grant.power)
        padlocks[key] = tuple(sorted(set(padlocks.get(key, ())) | {region_index(grant.region)}))
    bot_vetoes: dict[int, int] = {}
    ally_values: dict[int, tuple[int, ...]] = {}
    for name in record.bots:
        power = _power(name)
        bits = 0
        for value in record.bot_vetoes:
            bits |= VETO_BIT_OF_VALUE[value]
        if name in content.tables().setup.extra_veto_powers and record.bot_hand in (
            "dealt3",
            "solitaire",
        ):
            bits |= VETO_EXTRA
        bot_vetoes[power] = bits
        ally = POWERS.index({"US": "EU", "EU": "US", "China": "Russia", "Russia": "China"}[name])
        if record.vetoes_to_ally and not (bots >> ally) & 1:
            ally_values[ally] = record.vetoes_to_ally
    needed = content.tables().setup.objectives_for_victory
    if record.bot_hand == "solitaire":
        needed = getattr(tables().variants_doc.solitaire_objectives_needed, difficulty)
    return VariantSetup(
        variant=record.id,
        bots=bots,
        difficulty=level,
        bot_deployments=bot_deployments,
        human_deployments=human,
        withdrawn_objectives=record.withdrawn_objectives,
        open_padlocks=padlocks,
        cards_per_human=record.cards_per_human,
        bot_hand=record.bot_hand,
        bot_vetoes=bot_vetoes,
        ally_veto_values=ally_values,
        ally_exchange=record.ally_exchange,
        leftover_exchange=record.leftover_exchange,
        objectives_award_vp=record.objectives_award_vp,
        objectives_needed=needed,
    )


def difficulty(state: NcwState) -> int:
    """The stored difficulty index of a game (intermediate when unset)."""
    return state.flags.get("difficulty", 1)


def special_benefits(turn: int, level: int) -> tuple[str, ...]:
    """The bots' benefits at the start of a turn (6.2.2): op_reserve, prestige, media_reserve."""
    table = tables().benefits[DIFFICULTIES[level]]
    out: list[str] = []
    if turn in table.op_reserve_turns:
        out.append("op_reserve")
    if turn in table.prestige_turns:
        out.append("prestige")
    if turn in table.media_reserve_turns:
        out.append("media_reserve")
    return tuple(out)


def bot_region_reward(power: int, region: int, level: int, turn: int, base: int) -> int:
    """A bot's reward for controlling a region at a global scoring (6.2.1.1).

    Its first and second regions pay the difficulty table; its third region and any other
    region pay the base game's reward (the third region's "VICTORY" entry is the automatic
    victory condition, and on turn 9 the rulebook states the base-game reward).
    """
    name = POWERS[power]
    regions = tables().powers[name].victory_regions
    region_id = content.REGION_IDS[region]
    rewards = tables().rewards[DIFFICULTIES[level]]
    if region_id == regions[0]:
        return rewards.first[name]
    if region_id == regions[1]:
        return rewards.second[name]
    return base


def bot_regions(power: int) -> tuple[int, int, int]:
    """A bot's three priority regions as region indices."""
    a, b, c = (region_index(r) for r in tables().powers[POWERS[power]].victory_regions)
    return a, b, c


def bot_automatic_victory(state: NcwState, power: int) -> bool:
    """6.1: a bot controlling its three regions at the end of turns 1-8 wins automatically."""
    if state.turn >= 9:
        return False
    from warroom.games.ncw.bots.adapter import region_name, stats_board

    board = stats_board(state)
    from warroom.games.ncw.bots.board import controls_region

    name = POWERS[power]
    return all(
        controls_region(board, name, region_name(r), board.region_min[region_name(r)])
        for r in bot_regions(power)
    )


def solitaire_gift_target(turn: int, human: int) -> int:
    """6.10: the bot power the solitaire player gives a card to before `turn`."""
    order = [
        _power(p) for p in tables().variants_doc.solitaire_gift_order.order if _power(p) != human
    ]
    return order[(turn - 1) % len(order)]


def bot_pick_card(
    hand: Sequence[int], rounds_left: int, rng: int, crisis: Sequence[bool]
) -> tuple[int, int]:
    """A bot's random card for this round: (index in hand, new RNG state).

    Crisis cards can be neither discarded nor left over, so once a bot holds as many crisis
    cards as rounds remain it plays one of them (ruling in docs/rulings.md).
    """
    if not hand:
        raise ValueError("a bot with an empty hand cannot play")
    pool = list(range(len(hand)))
    forced = [i for i in pool if crisis[i]]
    if forced and len(forced) >= rounds_left:
        pool = forced
    rng, pick = randbelow(rng, len(pool))
    return pool[pick], rng


def bot_card_order(state: NcwState, power: int) -> int:
    """Pick the card a bot plays this round from `state.hands[power]`, advancing `state.rng`."""
    cards = content.tables().cards
    hand = state.hands[power]
    rounds_left = max(1, content.tables().setup.rounds_per_turn - state.round)
    index, state.rng = bot_pick_card(hand, rounds_left, state.rng, [cards[c].crisis for c in hand])
    return hand[index]


def _event_possible(state: NcwState, power: int, card: int) -> bool:
    from warroom.games.ncw import flow

    if flow.war_held(state, card, power):
        return False
    return bool(flow.event_playable(state, card, power)) and _event_does_something(
        state, power, card
    )


_TRIAL_FIELDS = (
    "control",
    "token",
    "vp",
    "prestige",
    "media",
    "media_box",
    "op_reserve",
    "access",
    "flags",
    "region_vp_mod",
    "region_vp_mod_perm",
    "country_vp_mod",
    "vetoes",
    "orbit_override",
    "perm_destab",
    "blocks",
    "hands",
    "removed",
)
"""The state a card's event can change (compared before and after a trial run)."""


def _event_does_something(state: NcwState, power: int, card: int) -> bool:
    """6.4: whether some effect of `power`'s event `card` can be implemented now ("If none of
    the effects of an event can be implemented, the card is played for OPs").

    The event is run on a copy: a choice with a real option, or OPs with an action, can be
    implemented; otherwise the copy must differ from the state.
    """
    trial = state.clone()
    trial.stack = []
    fx.resolve_event(trial, card, power, power)
    while (frame := trial.top()) is not None:
        if frame.kind == "ops":
            return any(i != "done" for i, _ in O.ops_options(trial, frame))
        if not frame.kind.startswith("fx:"):
            return True
        if any(i != fx.PASS for i, _ in fx.frame_options(trial, frame)):
            return True
        fx.apply_frame(trial, frame, fx.PASS)
    return any(getattr(trial, f) != getattr(state, f) for f in _TRIAL_FIELDS)


def bot_play_mode(state: NcwState, power: int, card: int) -> int:
    """EVENT or OPS for a card a bot plays (6.4 and Annex IV).

    Crisis cards are events (0 OPs); rival and negative cards are OPs (their events follow);
    own cards are events unless the event cannot be played or none of its effects can be
    implemented (Macron's row: "If all countries are controlled, it is played as OP");
    neutral cards are OPs unless Annex IV lists them for this bot (Diplomatic Mission only
    in the 1st decade).
    """
    stats = content.tables().cards[card]
    if stats.crisis:
        return EVENT
    if (stats.power != -1 and stats.power != power) or stats.negative:
        return OPS
    if stats.power == -1:
        row = tables().interpretation(POWERS[power], stats.name)
        if row is None or (row.play == "event_decade_1" and state.decade != 1):
            return OPS
    return EVENT if _event_possible(state, power, card) else OPS


def _covering_bits(bits: int, value: int, decade: int) -> list[tuple[int, int]]:
    """The veto markers (bit, cost) able to veto a card of `value` OPs, extra veto first."""
    usable: list[tuple[int, int]] = []
    if bits & VETO_EXTRA and decade == 1 and 1 <= value <= 3:
        usable.append((VETO_EXTRA, value))
    for bit, cover in BOT_VETO_ORDER:
        if bits & bit and value <= cover:
            usable.append((bit, cover))
    return usable


def bot_veto(state: NcwState, power: int, card: int, player: int) -> int:
    """The veto bit a bot uses against a card in play, or 0 (6.8, 6.9, 6.10).

    A bot vetoes its own negative cards played by another power, with the extra veto first
    (US, Russia; 1st decade) and otherwise the lowest marker covering the card's higher OPs
    value. The Russia bot also spends its extra veto on the first of Gulf Monarchies, Gulf War
    and Mubarak unless the countries they concern are all under US control.
    """
    if player == power or (state.vetoed_this_turn and state.vetoed_this_turn[power]):
        return 0
    stats = content.tables().cards[card]
    if stats.crisis or stats.ops >= 4:
        return 0
    bits = state.vetoes[power] if state.vetoes else 0
    value = max(stats.ops, stats.ops_low)
    if stats.power == power and stats.negative:
        usable = _covering_bits(bits, value, state.decade)
        return usable[0][0] if usable else 0
    if POWERS[power] == "Russia" and bits & VETO_EXTRA and state.decade == 1 and stats.power == 0:
        listed = {norm_name(r.card): r for r in tables().variants_doc.russia_extra_veto_countries}
        row = listed.get(norm_name(stats.name))
        if row is not None and 1 <= value <= 3:
            held = all(state.control[country_index(c)] == 0 for c in row.countries)
            if not held:
                return VETO_EXTRA
    return 0
