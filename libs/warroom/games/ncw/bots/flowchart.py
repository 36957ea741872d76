"""The official bots' seven-step flowchart for spending OPs (rulebook 6.6, 6.5).

`next_action` returns the one action the flowchart takes next for the OPs left on a card;
`plan` repeats it on a simulated board until the OPs are spent. The caller (the rules'
bot automation or the `ncw-official` chooser) executes each action through the real rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from dataclasses import replace as _replace

from warroom.games.ncw.bots.board import (
    ALLY,
    BLOC,
    MEDIA_SIGN,
    Board,
    CountryFacts,
    coup_cost,
    pos_cost,
    reinforced,
)
from warroom.games.ncw.bots.data import BotPower, PriorityRegion, tables

STEPS_ALL: frozenset[int] = frozenset(range(1, 8))
STEPS_EVENT_OPS: frozenset[int] = frozenset({1, 2, 7})
"""6.4: OPs an event says to play in given countries or regions use steps 1, 2 and 7 only."""

LAST_ROUND_TURNS = (3, 6, 9)


@dataclass(frozen=True, slots=True)
class Action:
    """One flowchart action. `step` is the flowchart step ("1", "2A".."2D", "4".."7B")."""

    kind: str
    step: str
    cost: int
    country: str | None = None
    region: str | None = None


@dataclass(frozen=True, slots=True)
class Spend:
    """The OPs being spent on one card and what that card has already done."""

    ops: int
    reserve_on_card: bool = False
    reserve_done: bool = False
    prestige_done: bool = False
    media_done: bool = False
    media_reserve_done: bool = False
    controlled: frozenset[str] = frozenset()
    moved: frozenset[str] = frozenset()
    steps: frozenset[int] = STEPS_ALL
    countries: tuple[str, ...] | None = None
    regions: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Profile:
    """A bot power's tables (from content/bots.yaml)."""

    power: str
    priority: tuple[PriorityRegion, ...]
    orbit_fallback: tuple[str, ...] = ()
    minimum: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, power: str) -> Profile:
        """The profile of a power's official bot."""
        bot: BotPower = tables().powers[power]
        return cls(
            power, bot.priority, bot.orbit_fallback, {t.region: t.control for t in bot.priority}
        )


def profile(power: str) -> Profile:
    """The cached profile of a power's official bot."""
    found = _PROFILES.get(power)
    if found is None:
        found = _PROFILES[power] = Profile.of(power)
    return found


_PROFILES: dict[str, Profile] = {}


def is_reinforced(board: Board, power: str, table: PriorityRegion) -> bool:
    """Whether the bot has reinforced control of one of its priority regions."""
    return reinforced(board, power, table.region, board.region_min.get(table.region, table.control))


def open_regions(board: Board, prof: Profile) -> list[PriorityRegion]:
    """The priority regions without reinforced control, in priority order (steps 1-3)."""
    return [t for t in prof.priority if not is_reinforced(board, prof.power, t)]


def _order(table: PriorityRegion, spend: Spend) -> Iterable[str]:
    """The countries a step examines: the table's, or the card's scope with those of the table
    in the table's order (6.4: event OPs follow the flowchart and "the priority table for that
    bot"; ruling 10), the others after them in the card's order."""
    if spend.countries is None:
        return table.names
    scope = set(spend.countries)
    listed = [c for c in table.names if c in scope]
    return listed + [c for c in spend.countries if c not in table.names]


def _may_attack(board: Board, power: str, country: str, region: str) -> bool:
    """6.5: a bot attacks another bot at most once per region and turn."""
    holder = board.control.get(country)
    if holder is None or holder not in board.bots or power not in board.bots:
        return True
    return (power, region) not in board.attacks


def _in_scope(board: Board, power: str, country: str, spend: Spend) -> bool:
    # `board.may_influence` inlined: this runs for every country a step examines
    facts = board.facts.get(country)
    if facts is None:
        return False
    blocked = board.blocked.get(power)
    if blocked is not None and country in blocked:
        return False
    return spend.regions is None or facts.region in spend.regions


_NONE_BLOCKED: frozenset[str] = frozenset()

_Home = tuple[Mapping[str, CountryFacts], PriorityRegion, frozenset[str], tuple[str, ...]]
_HOME: dict[tuple[int, int, int], _Home] = {}
"""`_home_names` by the ids of its arguments, holding them so the ids stay theirs."""


def _home_names(
    facts: Mapping[str, CountryFacts], table: PriorityRegion, blocked: frozenset[str]
) -> tuple[str, ...]:
    """The table's countries that lie in its region and are not blocked, in the table's order
    (memoized by identity: the facts and blocked sets a board holds are never mutated)."""
    key = (id(facts), id(table), id(blocked))
    found = _HOME.get(key)
    if found is None or found[0] is not facts or found[1] is not table or found[2] is not blocked:
        if len(_HOME) >= 4096:
            _HOME.clear()
        home = tuple(
            c
            for c in table.names
            if (f := facts.get(c)) is not None and f.region == table.region and c not in blocked
        )
        found = _HOME[key] = (facts, table, blocked, home)
    return found[3]


def _scoped(board: Board, power: str, table: PriorityRegion, spend: Spend) -> Iterable[str]:
    """The countries a step examines in a table: in the table's (or the card's) order, in
    scope (`_in_scope`) and in the table's region."""
    if spend.countries is None and spend.regions is None:
        return _home_names(board.facts, table, board.blocked.get(power, _NONE_BLOCKED))
    facts = board.facts
    return [
        c
        for c in _order(table, spend)
        if _in_scope(board, power, c, spend) and facts[c].region == table.region
    ]


def step1(board: Board, power: str, table: PriorityRegion, spend: Spend) -> Action | None:
    """Step 1: place control in the first affordable uncontrolled country of the table."""
    if not board.can_enter(power, table.region):
        return None
    for country in _scoped(board, power, table, spend):
        if country in board.control or country in spend.moved:
            continue
        cost = pos_cost(board, country, power)
        if cost <= spend.ops:
            return Action("control", "1", cost, country, table.region)
    return None


def step2(board: Board, power: str, table: PriorityRegion, spend: Spend) -> Action | None:
    """Step 2: eliminate rival control: A coup, B remove, C destabilize, D remove a stabilizing token."""
    if not board.can_enter(power, table.region):
        return None
    bloc = BLOC[power]
    targets = [
        c
        for c in _scoped(board, power, table, spend)
        if board.control.get(c) not in (None, power)
        and c not in spend.moved
        and _may_attack(board, power, c, table.region)
    ]
    if board.coups_left.get(power, 3) > 0:
        for country in targets:
            cost = coup_cost(board, country, power)
            if cost is not None and cost <= spend.ops:
                return Action("coup", "2A", cost, country, table.region)
    for country in targets:
        cost = pos_cost(board, country, power)
        if cost <= spend.ops:
            return Action("remove", "2B", cost, country, table.region)
    if spend.ops < 1:
        return None
    opposing = [c for c in targets if BLOC[board.control[c]] != bloc]
    for country in opposing:
        if country not in board.tokens and board.facts[country].rating(bloc) > 1:
            return Action("destabilize", "2C", 1, country, table.region)
    for country in opposing:
        if board.tokens.get(country) not in (None, bloc):
            return Action("remove_token", "2D", 1, country, table.region)
    return None


def _reserve_box(board: Board, power: str) -> int:
    return board.op_reserve.get(power, 0)


def step4(board: Board, power: str, spend: Spend) -> Action | None:
    """Step 4: 1 OP to the OP reserve (not with a reserve on the card; not late in a scoring turn)."""
    if spend.ops < 1 or spend.reserve_on_card or spend.reserve_done:
        return None
    box = _reserve_box(board, power)
    if box > 0:
        return None
    if box == 0 and board.turn in LAST_ROUND_TURNS and board.round == 3:
        return None
    return Action("op_reserve", "4", 1)


def prestige_cost(position: int) -> int:
    """OPs to advance one step on the prestige track (4.3.2.4)."""
    return 2 if -3 <= position <= 3 else 3


def step5(board: Board, power: str, spend: Spend) -> Action | None:
    """Step 5: advance one step on the prestige track (never in turn 9)."""
    if board.turn == 9 or spend.prestige_done:
        return None
    position = board.prestige.get(power, 0)
    if position >= 5:
        return None
    cost = prestige_cost(position)
    if cost <= spend.ops:
        return Action("prestige", "5", cost)
    return None


def step6(board: Board, power: str, spend: Spend) -> Action | None:
    """Step 6: A 2 OPs to advance on the media track; B 1 OP for a media reserve."""
    sign = MEDIA_SIGN[BLOC[power]]
    if board.media * sign >= 5:
        return None
    if spend.ops >= 2 and not spend.media_done:
        return Action("media", "6A", 2)
    if spend.ops >= 1 and not spend.media_reserve_done and board.media_reserve.get(power, 0) <= 0:
        return Action("media_reserve", "6B", 1)
    return None


def step7_regions(board: Board, prof: Profile) -> list[PriorityRegion]:
    """Step 7's region order (6.6): from the next region without reinforced control, then around.

    "If reinforced control is already achieved for the first and second priority regions and
    stability tokens cannot be placed in the third region, place them in the first priority
    region, then the second": once every region before the last is reinforced, step 7 starts
    in the last one whether or not it is reinforced too.
    """
    tables_ = list(prof.priority)
    start = len(tables_) - 1
    for index, table in enumerate(tables_[:-1]):
        if not is_reinforced(board, prof.power, table):
            start = index
            break
    return tables_[start:] + tables_[:start]


def step7(board: Board, prof: Profile, spend: Spend) -> Action | None:
    """Step 7: A remove rival tokens from own destabilized countries; B stabilize own countries."""
    if spend.ops < 1:
        return None
    power = prof.power
    bloc = BLOC[power]
    for table in step7_regions(board, prof):
        own = [c for c in _scoped(board, power, table, spend) if board.control.get(c) == power]
        for country in own:
            if board.tokens.get(country) not in (None, bloc):
                return Action("remove_token", "7A", 1, country, table.region)
        for country in own:
            if country not in board.tokens and country not in spend.controlled:
                return Action("stabilize", "7B", 1, country, table.region)
    return None


def next_action(
    board: Board, power: str, spend: Spend, prof: Profile | None = None
) -> Action | None:
    """The flowchart's next action for the OPs left on a card, or None when nothing can be done."""
    if spend.ops <= 0:
        return None
    prof = prof or profile(power)
    steps = spend.steps
    if 1 in steps or 2 in steps:
        regions = open_regions(board, prof)
        if spend.regions is not None or spend.countries is not None:
            regions = _event_regions(board, prof, spend)
        for table in regions:
            if 1 in steps:
                found = step1(board, power, table, spend)
                if found:
                    return found
            if 2 in steps:
                found = step2(board, power, table, spend)
                if found:
                    return found
            if 3 not in steps and spend.countries is None and spend.regions is None:
                break
    if 4 in steps:
        found = step4(board, power, spend)
        if found:
            return found
    if 5 in steps:
        found = step5(board, power, spend)
        if found:
            return found
    if 6 in steps:
        found = step6(board, power, spend)
        if found:
            return found
    if 7 in steps:
        return step7(board, prof, spend)
    return None


def _event_regions(board: Board, prof: Profile, spend: Spend) -> list[PriorityRegion]:
    """6.4: OPs an event limits to countries or regions: own tables first, then the card's list."""
    wanted: list[str] = []
    if spend.regions is not None:
        wanted = list(spend.regions)
    elif spend.countries is not None:
        for country in spend.countries:
            facts = board.facts.get(country)
            if facts is not None and facts.region not in wanted:
                wanted.append(facts.region)
    own = [t for t in prof.priority if t.region in wanted]
    rest: list[PriorityRegion] = []
    for region in wanted:
        if any(t.region == region for t in own):
            continue
        names = tuple(
            c
            for c in (spend.countries or ())
            if c in board.facts and board.facts[c].region == region
        )
        if not names:
            names = tuple(c for c in board.facts if board.facts[c].region == region)
        rest.append(
            PriorityRegion(
                region=region,
                control=board.region_min.get(region, 4),
                reinforced=0,
                countries=tuple((c, 0) for c in names),
            )
        )
    return own + rest


def simulate(board: Board, power: str, spend: Spend, action: Action) -> tuple[Board, Spend]:
    """The board and card after an action, as the bot models it (for planning and tests)."""
    spend = _replace(spend, ops=spend.ops - action.cost)
    country = action.country
    bloc = BLOC[power]
    if action.kind in ("control", "coup", "remove") and country is not None:
        board = _take_country(board, power, action.kind, country)
        spend = _replace(
            spend, moved=spend.moved | {country}, controlled=spend.controlled | {country}
        )
    elif action.kind in ("destabilize", "stabilize", "remove_token") and country is not None:
        board = _move_token(board, power, action, country)
    elif action.kind == "op_reserve":
        box = dict(board.op_reserve)
        box[power] = 0 if box.get(power, 0) < 0 else 1
        board = _rb(board, op_reserve=box)
        spend = _replace(spend, reserve_done=True)
    elif action.kind == "prestige":
        prestige = dict(board.prestige)
        prestige[power] = min(5, prestige.get(power, 0) + 1)
        board = _rb(board, prestige=prestige)
        spend = _replace(spend, prestige_done=True)
    elif action.kind == "media":
        board = _rb(board, media=_clamp(board.media + MEDIA_SIGN[bloc]))
        spend = _replace(spend, media_done=True)
    elif action.kind == "media_reserve":
        reserve = dict(board.media_reserve)
        ally = ALLY[power]
        if reserve.get(power, 0) < 0:
            reserve[power] = 0
        elif reserve.get(ally, 0) > 0:
            reserve[ally] = 0
            board = _rb(board, media=_clamp(board.media + MEDIA_SIGN[bloc]))
        else:
            reserve[power] = 1
        board = _rb(board, media_reserve=reserve)
        spend = _replace(spend, media_reserve_done=True)
    return board, spend


def _take_country(board: Board, power: str, kind: str, country: str) -> Board:
    """A control, coup or removal: the country's new holder, its token gone where the move
    used or removed it, an attack on a bot's region noted, a coup spent."""
    control = dict(board.control)
    tokens = dict(board.tokens)
    previous = control.get(country)
    if kind == "remove":
        del control[country]
    else:
        control[country] = power
    if _token_used(board, country, power) or (
        country in tokens and kind == "remove" and tokens[country] != BLOC[power]
    ):
        tokens.pop(country, None)
    attacks = board.attacks
    coups = dict(board.coups_left)
    if previous is not None and previous in board.bots and power in board.bots:
        attacks = attacks | {(power, board.facts[country].region)}
    if kind == "coup":
        coups[power] = coups.get(power, 3) - 1
    return _rb(board, control=control, tokens=tokens, attacks=attacks, coups_left=coups)


def _move_token(board: Board, power: str, action: Action, country: str) -> Board:
    """A (de)stabilization token placed, or removed; destabilizing a bot's country, or
    removing its token in step 2D, is an attack on its region."""
    tokens = dict(board.tokens)
    if action.kind == "remove_token":
        tokens.pop(country, None)
        attacking = action.step == "2D"
    else:
        tokens[country] = BLOC[power]
        attacking = action.kind == "destabilize"
    attacks = board.attacks
    holder = board.control.get(country)
    if attacking and holder in board.bots and power in board.bots:
        attacks = attacks | {(power, board.facts[country].region)}
    return _rb(board, tokens=tokens, attacks=attacks)


def _rb(board: Board, **changes: object) -> Board:
    return board.with_changes(**changes)


def _token_used(board: Board, country: str, power: str) -> bool:
    from warroom.games.ncw.bots.board import token_effect

    return token_effect(board, country, power) != 0


def _clamp(media: int) -> int:
    return max(-5, min(5, media))


def plan(
    board: Board, power: str, spend: Spend, prof: Profile | None = None
) -> tuple[list[Action], Board]:
    """Every action the flowchart takes for a card's OPs, and the board it expects afterwards."""
    actions: list[Action] = []
    while True:
        action = next_action(board, power, spend, prof)
        if action is None:
            return actions, board
        actions.append(action)
        board, spend = simulate(board, power, spend, action)
