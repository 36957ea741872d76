"""Answering the core's decisions for an official bot.

`choose(state, power, options)` is what the rules call for a bot seat (on the working copy:
it may advance `state.rng` for the bot's random card and place 6.5 attack markers).
`choose_option(state, seat, decision, difficulty)` serves the platform's `ncw-official`
bot kind for any seat, on a state determinized from that seat's view; it works on a copy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cache, lru_cache

from warroom.engine.model import Decision
from warroom.games.ncw import content
from warroom.games.ncw import effects as fx
from warroom.games.ncw import ops as O
from warroom.games.ncw.bots.adapter import (
    board_of,
    name_index,
    names,
    record_attack,
    stats_board,
)
from warroom.games.ncw.bots.board import BLOC, Board
from warroom.games.ncw.bots.data import POWERS, tables
from warroom.games.ncw.bots.flowchart import (
    STEPS_ALL,
    STEPS_EVENT_OPS,
    Action,
    Spend,
    next_action,
    open_regions,
    profile,
    step7_regions,
)
from warroom.games.ncw.bots.hooks import place_option
from warroom.games.ncw.bots.media import media_benefit_targets
from warroom.games.ncw.bots.variants import bot_veto
from warroom.games.ncw.cards import (
    Control,
    Effect,
    Permanent,
    Pos,
    Prestige,
    Vp,
    card_steps,
    cards_by_number,
)
from warroom.games.ncw.state import (
    OPF_CONTROL_ONLY,
    OPF_MEDIA_RES_DONE,
    OPF_MEDIA_USED,
    OPF_NO_COUP,
    OPF_ONE_PER_REGION,
    OPF_PRESTIGE_USED,
    OPF_RESERVE_DONE,
    VETO_1,
    VETO_2,
    VETO_3,
    VETO_EXTRA,
    NcwState,
)

PASSIVE = ("done", "pass", "skip", "none", "no")
_VETO_OPTION = {VETO_1: "veto:1", VETO_2: "veto:2", VETO_3: "veto:3", VETO_EXTRA: "veto:extra"}
"""The veto option of each marker bit a bot may spend."""


def spend_of(state: NcwState, power: int) -> Spend:
    """The card being spent (top "ops" frame) as the flowchart's `Spend`."""
    frame = state.top()
    assert frame is not None and frame.kind == "ops"
    n = names()
    play = state.plays[power] if state.plays and len(state.plays) > power else None
    reserve_on_card = bool(play is not None and play.card == frame.card and play.reserve)
    moved = frozenset(n[c] for c in frame.items)
    controlled = frozenset(n[c] for c in frame.items if state.control[c] == power)
    steps = STEPS_ALL
    countries: tuple[str, ...] | None = None
    if frame.scope:
        steps = STEPS_EVENT_OPS
        countries = tuple(n[c] for c in frame.scope)
    if frame.flags & OPF_CONTROL_ONLY:
        steps = steps & STEPS_EVENT_OPS
    return Spend(
        ops=frame.ops,
        reserve_on_card=reserve_on_card,
        reserve_done=bool(frame.flags & OPF_RESERVE_DONE),
        prestige_done=bool(frame.flags & OPF_PRESTIGE_USED),
        media_done=bool(frame.flags & OPF_MEDIA_USED),
        media_reserve_done=bool(frame.flags & OPF_MEDIA_RES_DONE),
        controlled=controlled,
        moved=moved,
        steps=steps,
        countries=countries,
    )


def option_of(action: Action) -> str:
    """The core's option id for a flowchart action."""
    if action.country is None:
        return {"op_reserve": "reserve"}.get(action.kind, action.kind)
    country = content.tables().countries[name_index()[action.country]].id
    if action.kind == "coup":
        return f"coup:{country}"
    if action.kind in ("control", "remove"):
        return f"pos:{country}"
    return f"token:{country}"


def choose_ops(
    state: NcwState, power: int, options: Sequence[str], board: Board | None = None
) -> str:
    """The flowchart's next action for the "ops" frame on top of the stack, as an offered option."""
    board = board or board_of(state)
    spend = spend_of(state, power)
    frame = state.top()
    assert frame is not None
    if frame.flags & (OPF_NO_COUP | OPF_ONE_PER_REGION):
        board = board.with_changes(coups_left={**board.coups_left, POWERS[power]: 0})
    offered = set(options)
    excluded: set[str] = set()
    for _ in range(len(options) + 1):
        action = next_action(board, POWERS[power], spend)
        if action is None:
            break
        option = option_of(action)
        if option in offered:
            return option
        if action.country is None:
            spend = _without(spend, action)
        else:
            excluded.add(action.country)
            spend = replace(spend, moved=spend.moved | excluded)
    return "done" if "done" in offered else options[0]


def _without(spend: Spend, action: Action) -> Spend:
    if action.kind == "op_reserve":
        return replace(spend, reserve_done=True)
    if action.kind == "prestige":
        return replace(spend, prestige_done=True)
    if action.kind == "media":
        return replace(spend, media_done=True)
    return replace(spend, media_reserve_done=True)


def note_attack(state: NcwState, power: int, option: str) -> None:
    """Place the 6.5 marker when a bot's OPs attack a country another bot controls."""
    kind, _, country_id = option.partition(":")
    if kind not in ("pos", "coup", "token") or not country_id:
        return
    if not state.bots >> power & 1:
        return
    t = content.tables()
    c = t.country_index.get(country_id)
    if c is None:
        return
    holder = state.control[c]
    if holder < 0 or holder == power or not state.bots >> holder & 1:
        return
    if kind == "token" and BLOC[POWERS[holder]] == BLOC[POWERS[power]]:
        return
    record_attack(state, power, t.country_region[c])


def rank_countries(state: NcwState, power: int, card: int = -1) -> list[str]:
    """Country ids in the order a bot prefers them for an event's choices (6.4, Annex IV).

    The card's Annex IV list first, then the countries the card lists (6.4), then the bot's
    priority tables from the first region without reinforced control, then every other country
    by VP value.
    """
    board = stats_board(state)
    prof = profile(POWERS[power])
    tables_ = open_regions(board, prof) + step7_regions(board, prof)
    return list(_ranked(power, card, tuple(t.region for t in tables_)))


@lru_cache(maxsize=4096)
def _ranked(power: int, card: int, regions: tuple[str, ...]) -> tuple[str, ...]:
    """`rank_countries` once the board has given the order of the bot's priority `regions`."""
    t = content.tables()
    name = POWERS[power]
    prof = profile(name)
    by_region = {table.region: table for table in prof.priority}
    assert len(by_region) == len(prof.priority), f"{name}: a region twice in the priority"
    ordered: list[str] = []
    stats = t.cards.get(card)
    row = tables().interpretation(name, stats.name) if stats is not None else None
    if row is not None:
        ordered.extend(row.targets)
        for listed in row.targets_by_region.values():
            ordered.extend(listed)
        if row.table:
            for table in profile(row.table).priority:
                ordered.extend(table.names)
    ordered.extend(_card_list(card))
    for region in regions:
        ordered.extend(by_region[region].names)
    ordered.extend(_by_value())
    seen: set[str] = set()
    out: list[str] = []
    index = name_index()
    for country in ordered:
        if country in seen or country not in index:
            continue
        seen.add(country)
        out.append(t.countries[index[country]].id)
    return tuple(out)


@cache
def _card_list(card: int) -> tuple[str, ...]:
    """The countries card `card` lists for its +POS or control steps, in the card's order (6.4:
    such cards "must follow the list of countries on the card"), by name."""
    spec = cards_by_number().get(card)
    if spec is None:
        return ()
    t = content.tables()
    return tuple(
        t.countries[t.country_index[country]].name
        for step in card_steps(spec)
        if isinstance(step, Pos | Control)
        for country in step.countries
    )


@cache
def _by_value() -> tuple[str, ...]:
    t = content.tables()
    return tuple(
        t.countries[c].name
        for c in sorted(range(len(t.countries)), key=lambda c: (-t.country_value[c], c))
    )


def choose_generic(state: NcwState, power: int, options: Sequence[str]) -> str:
    """Any other decision: the best-ranked country an option names, else the first active option."""
    frame = state.top()
    card = frame.card if frame is not None else -1
    by_country: dict[str, str] = {}
    for option in options:
        for part in option.replace("=", ":").split(":"):
            if part in content.tables().country_index and part not in by_country:
                by_country[part] = option
    if by_country:
        for country in rank_countries(state, power, card):
            if country in by_country:
                return by_country[country]
    active = [o for o in options if o not in PASSIVE]
    return active[0] if active else options[0]


_CHOICE_METHODS: dict[str, Callable[[Effect], bool]] = {
    "vp": lambda e: isinstance(e, Vp) and e.who == "self" and e.delta > 0,
    "prestige": lambda e: isinstance(e, Prestige) and e.who == "self" and e.delta > 0,
    "next_global_scoring": lambda e: isinstance(e, Permanent) and e.id == "fake_news_scoring",
    "next_prestige_check": lambda e: isinstance(e, Permanent) and e.id == "fake_news_prestige",
}
"""Annex IV choices between a card's options: which option's effects the bot's row picks."""


def choose_annex_iv(state: NcwState, power: int, options: Sequence[str]) -> str | None:
    """The option an event's choice takes by the bot's Annex IV row, or None if it says nothing.

    North Korea Nuclear Crisis "+3 VPs" / "+1 (PC)", Fake News "next global scoring" / "the
    following prestige check", Raw Material Shortage "the 2 players with the lowest VP" (one
    pick at a time; ties: lower prestige, then lower media, then the initial order); ASEAN Plus
    Three opponents' countries first, Xi Jinping uncontrolled countries first, Underground Great
    Wall stabilized countries first (in the row's list order, then the bot's ranking); Diplomatic
    Mission the row's region ("1st decade - Africa").
    """
    frame = state.top()
    stats = content.tables().cards.get(frame.card) if frame is not None else None
    if frame is None or stats is None:
        return None
    row = tables().interpretation(POWERS[power], stats.name)
    if row is None:
        return None
    wanted = _CHOICE_METHODS.get(row.method)
    if frame.kind == fx.FX_OPTION and wanted is not None:
        for i, effects in enumerate(fx.choice_effects(frame)):
            if any(map(wanted, effects)) and f"opt:{i}" in options:
                return f"opt:{i}"
    if frame.kind == fx.FX_POWER and row.method == "lowest_vp_players":
        picks = [o for o in options if o.startswith("power:")]
        if picks:
            return min(picks, key=lambda o: O.behind_key(state, POWERS.index(o[6:])))
    if frame.kind == fx.FX_REGION and f"region:{row.region}" in options:
        return f"region:{row.region}"
    if frame.kind == fx.FX_COUNTRY and row.method in _COUNTRY_METHODS:
        return _first_country(state, power, frame.card, options, _COUNTRY_METHODS[row.method])
    return None


def _stabilized_against(state: NcwState, c: int, me: int) -> bool:
    """Whether another power holds c and c's stability token stabilizes it (4.3.2.3)."""
    ctrl = state.control[c]
    favours = O.token_favours(state, c)
    return ctrl >= 0 and ctrl != me and favours is not None and favours[1]


_COUNTRY_METHODS: dict[str, Callable[[NcwState, int, int], bool]] = {
    "opponents_first": lambda s, c, me: s.control[c] >= 0 and s.control[c] != me,
    "uncontrolled_first": lambda s, c, me: s.control[c] < 0,
    "stability_countries_first": _stabilized_against,
}
"""Annex IV country picks that come first: ASEAN Plus Three "Control opponents' countries:
...", Xi Jinping "First, uncontrolled stability 2 countries: ...", Underground Great Wall
"Stability countries first, 2" (stabilized countries: the event ignores their tokens, 4.3.2.3
example "chooses Cameroon, which is under EU control and, moreover, stabilized")."""


def _first_country(
    state: NcwState,
    power: int,
    card: int,
    options: Sequence[str],
    first: Callable[[NcwState, int, int], bool],
) -> str | None:
    """The best-ranked "pick:" option whose country passes `first`, or None."""
    picks = {o.partition(":")[2]: o for o in options if o.startswith("pick:")}
    index = content.tables().country_index
    for country in rank_countries(state, power, card):
        if country in picks and first(state, index[country], power):
            return picks[country]
    return None


def choose_veto(state: NcwState, power: int, options: Sequence[str]) -> str:
    """6.8-6.10: veto the bot's own negative cards played by others (and Russia's extra-veto list)."""
    frame = state.top()
    assert frame is not None
    player = next((p.power for p in state.plays if p is not None and p.card == frame.card), -1)
    bit = bot_veto(state, power, frame.card, player)
    name = _VETO_OPTION.get(bit)
    if name is not None and name in options:
        return name
    return "pass" if "pass" in options else options[-1]


_MEDIA_POSITION = {0: None, 1: 1, 2: 3, 3: 5}
"""The lowest media position of each core media-benefit level (`flow.media_benefits`)."""


def choose_media_benefit(state: NcwState, power: int, options: Sequence[str]) -> str:
    """6.7: the media advantage in the first region without reinforced control, ORBIT first.

    The benefit's level is the frame's (4.3.2.5: 1 for positions 1-2, 2 for 3-4, 3 for 5), which
    80-Fake News may set apart from the marker's position.
    """
    t = content.tables()
    index = name_index()
    frame = state.top()
    position = _MEDIA_POSITION[frame.flags & 3] if frame is not None else None
    for _kind, country in media_benefit_targets(board_of(state), POWERS[power], position=position):
        cid = t.countries[index[country]].id
        for option in (f"pos:{cid}", f"remove:{cid}"):
            if option in options:
                return option
    return "pass" if "pass" in options else options[0]


def _cheapest_card(options: Sequence[str]) -> str:
    cards = content.tables().cards

    def key(option: str) -> tuple[int, int]:
        number = int(option.partition(":")[2]) if option.partition(":")[2].isdigit() else -1
        stats = cards.get(number)
        return (stats.ops if stats is not None else 9, number)

    giving = [o for o in options if o.startswith("give:")]
    return min(giving, key=key) if giving else options[-1]


def choose(state: NcwState, power: int, options: Sequence[str], commit: bool = True) -> str:
    """The official bot's answer for `power` to the pending decision (core hook).

    With `commit` (the rules' bot seats, on the working copy) it advances `state.rng` for a
    random card and places 6.5 attack markers; without it the state is left untouched.
    """
    if not options:
        raise ValueError("a decision without options")
    frame = state.top()
    kind = frame.kind if frame is not None else ""
    if kind == "ops":
        option = choose_ops(state, power, options)
        if commit:
            note_attack(state, power, option)
        return option
    if kind == "place":
        rng = state.rng
        option = place_option(state, power, list(options))
        if not commit:
            state.rng = rng
        return option
    if kind == "veto":
        return choose_veto(state, power, options)
    if kind == "media_benefit":
        return choose_media_benefit(state, power, options)
    if kind in ("exchange", "leftover", "gift"):
        if kind == "leftover" and "done" in options:
            return "done"
        if kind == "gift":
            return _cheapest_card([o.replace("gift:", "give:") for o in options]).replace(
                "give:", "gift:"
            )
        return _cheapest_card(options)
    if kind == "debt":
        ranked = rank_countries(state, power)
        return max(
            options,
            key=lambda o: (
                ranked.index(o.partition(":")[2]) if o.partition(":")[2] in ranked else -1
            ),
        )
    if kind.startswith("fx:"):
        found = choose_annex_iv(state, power, options)
        if found is not None:
            return found
    return choose_generic(state, power, options)


def choose_option(
    state: NcwState, seat: int, decision: Decision, difficulty: str = "intermediate"
) -> str:
    """The `ncw-official` platform bot: the flowchart's choice for `seat` in `decision`.

    `state` must be built from what the seat may see (a determinization of its view);
    it is left unchanged (the random card uses, but does not advance, its RNG).
    """
    # a list display, not map(attrgetter): 3.11 specializes the slot read (2x cheaper)
    options = [o.id for o in decision.options_for(seat)]
    if "undo" in options:
        options = [o for o in options if o != "undo"]
    if not options:
        raise ValueError(f"seat {seat} has no option in {decision.kind!r}")
    if difficulty not in ("beginner", "intermediate", "expert"):
        raise ValueError(f"unknown difficulty {difficulty!r}")
    return choose(state, seat, options, commit=False)
