"""The official bot answering the core's "ops" decisions on real states (flowchart examples 1, 2.A, 7.B)."""

from __future__ import annotations

from collections.abc import Mapping

from warroom.games.ncw import content, ops
from warroom.games.ncw.bots.adapter import attacks_of, board_of
from warroom.games.ncw.bots.policy import choose, choose_generic, rank_countries
from warroom.games.ncw.state import CHINA, EU, POWERS, RUSSIA, US, Frame, NcwState, Play
from warroom.games.ncw.tests.helpers import CORE_AFRICA, CORE_ASIA

MEA = content.REGION_IDS.index("MEA")


# The core states below (example 7b and the turn-3 reserve test).
CORE_ASIA_CHINA = dict.fromkeys(CORE_ASIA, CHINA)
CORE_AFRICA_EU = dict.fromkeys(CORE_AFRICA, EU)


def cid(name: str) -> int:
    """The core index of a country by rulebook name."""
    t = content.tables()
    return next(i for i, c in enumerate(t.countries) if c.name == name)


def make_state(control: Mapping[str, int], **kw: object) -> NcwState:
    """A mid-game state with the given control (all regions open to every power)."""
    n = len(content.tables().countries)
    state = NcwState(
        control=[-1] * n,
        token=[0] * n,
        country_vp_mod=[0] * n,
        region_vp_mod=[0] * 28,
        region_vp_mod_perm=[0] * 28,
        access=[127] * 4,
        vp=[20] * 4,
        prestige=[0] * 4,
        media_box=[0] * 4,
        op_reserve=[0] * 4,
        coups_left=[3] * 4,
        vetoes=[7] * 4,
        vetoed_this_turn=[False] * 4,
        plays=[None] * 4,
        turn=2,
        round=1,
    )
    for name, power in control.items():
        state.control[cid(name)] = power
    for key, value in kw.items():
        setattr(state, key, value)
    return state


def spend(state: NcwState, power: int, n: int, card: int = -1) -> list[str]:
    """Let the bot spend n OPs through the core's own "ops" frames; the options it chose."""
    ops.push_ops(state, power, n, card=card)
    chosen = []
    while state.stack and state.top() is not None and state.stack[-1].kind == "ops":
        frame = state.stack[-1]
        options = [o for o, _ in ops.ops_options(state, frame)]
        option = choose(state, power, options)
        assert option in options
        chosen.append(option)
        ops.apply_ops_option(state, frame, option)
        if option == "done":
            break
    return chosen


def test_example_1_on_the_core_state() -> None:
    control = {
        "Israel": US,
        "Saudi Arabia": US,
        "Gulf States": US,
        "Jordan": US,
        "Iraq": CHINA,
        "Iran": RUSSIA,
        "Syria": RUSSIA,
        "Egypt": RUSSIA,
        "Lebanon": RUSSIA,
        "Haiti": RUSSIA,
    }
    state = make_state(control)
    assert ops.region_vp(state, US, MEA) == 6 and ops.region_vp(state, RUSSIA, MEA) == 5
    chosen = spend(state, US, 2)
    assert chosen[0] == "pos:yemen"
    assert chosen[1] == "pos:guatemala"
    assert state.control[cid("Yemen")] == US and state.control[cid("Guatemala")] == US
    assert ops.region_vp(state, US, MEA) == 7


def test_example_2a_coup_on_the_core_state() -> None:
    control = {
        "Israel": US,
        "Saudi Arabia": US,
        "Iraq": US,
        "Yemen": US,
        "Gulf States": RUSSIA,
        "Iran": RUSSIA,
        "Jordan": RUSSIA,
        "Egypt": RUSSIA,
        "Lebanon": RUSSIA,
        "Syria": RUSSIA,
    }
    state = make_state(control)
    vp_before = state.vp[US]
    chosen = spend(state, US, 2)
    assert chosen == ["coup:lebanon"]
    assert state.control[cid("Lebanon")] == US
    assert state.vp[US] == vp_before + 1


def test_example_7b_stabilize_sudan_on_the_core_state() -> None:
    control = {**CORE_ASIA_CHINA, **CORE_AFRICA_EU, "Sudan": CHINA}
    state = make_state(control, bots=(1 << CHINA) | (1 << EU), media_box=[0, 0, 1, 0])
    state.flags["bot_attacks"] = 1 << (CHINA * 7 + content.REGION_IDS.index("AFR"))
    state.flags["bot_attacks_turn"] = state.turn
    state.plays = [None, None, Play(CHINA, 999, 1, reserve=True), None]
    chosen = spend(state, CHINA, 1, card=999)
    assert chosen == ["token:sudan"]
    assert state.token[cid("Sudan")] == 2


def test_bot_attack_on_another_bot_places_the_marker() -> None:
    control = {
        "Israel": US,
        "Saudi Arabia": US,
        "Iraq": US,
        "Yemen": US,
        "Gulf States": RUSSIA,
        "Iran": RUSSIA,
        "Jordan": RUSSIA,
        "Egypt": RUSSIA,
        "Lebanon": RUSSIA,
        "Syria": RUSSIA,
    }
    state = make_state(control, bots=(1 << US) | (1 << RUSSIA))
    assert spend(state, US, 2) == ["coup:lebanon"]
    assert ("US", "MEA") in attacks_of(state)
    state.control[cid("Lebanon")] = RUSSIA
    chosen = spend(state, US, 2)
    assert not chosen[0].startswith(("coup:", "pos:jordan"))


def test_the_marker_does_not_apply_against_humans() -> None:
    control = {
        "Israel": US,
        "Saudi Arabia": US,
        "Iraq": US,
        "Yemen": US,
        "Gulf States": RUSSIA,
        "Iran": RUSSIA,
        "Jordan": RUSSIA,
        "Egypt": RUSSIA,
        "Lebanon": RUSSIA,
        "Syria": RUSSIA,
    }
    state = make_state(control, bots=1 << US)
    assert spend(state, US, 2) == ["coup:lebanon"]
    assert attacks_of(state) == frozenset()


def test_board_reads_the_core_state() -> None:
    state = make_state({"Cuba": RUSSIA}, media=-2)
    state.token[cid("Cuba")] = 1
    board = board_of(state)
    assert board.control == {"Cuba": "Russia"}
    assert board.tokens == {"Cuba": "blue"}
    assert board.media == -2
    assert board.facts["Cuba"].orbit == "Russia"
    assert POWERS[RUSSIA] == "Russia"


def test_generic_choices_follow_annex_iv_lists() -> None:
    state = make_state({})
    card = next((c.number for c in content.tables().cards.values() if c.name == "Pope Francis"), -1)
    ranked = rank_countries(state, EU, card)
    if card >= 0:
        assert ranked[:2] == ["uruguay", "peru"]
    state.push(Frame("fx:test", seat=EU, card=card))
    assert choose_generic(state, EU, ["pass", "fx:bolivia", "fx:uruguay"]) in (
        "fx:uruguay",
        "fx:bolivia",
    )


def test_media_benefit_on_the_core_frame() -> None:
    from warroom.games.ncw import flow

    control = {
        "Venezuela": RUSSIA,
        "Brazil": RUSSIA,
        "Ecuador": RUSSIA,
        "Bolivia": RUSSIA,
        "Peru": RUSSIA,
        "Cuba": US,
        "Nicaragua": US,
    }
    state = make_state(control, media=-3, bots=1 << RUSSIA)
    state.push(Frame("media_benefit", seat=RUSSIA, ops=1, flags=2))
    options = [o for o, _ in flow.media_benefit_options(state, state.stack[-1])]
    chosen = choose(state, RUSSIA, options)
    assert chosen == "pos:iran"
    state.control[cid("Iran")] = RUSSIA
    state.control[cid("Syria")] = RUSSIA
    state.control[cid("Lebanon")] = EU
    options = [o for o, _ in flow.media_benefit_options(state, state.stack[-1])]
    assert choose(state, RUSSIA, options) == "remove:lebanon"


def test_no_op_reserve_in_the_last_round_of_turn_3_on_the_core_state() -> None:
    control = {**CORE_ASIA_CHINA, **CORE_AFRICA_EU, "Sudan": EU}
    state = make_state(control, bots=(1 << CHINA) | (1 << EU), turn=3, round=2)
    state.flags["bot_attacks"] = 1 << (CHINA * 7 + content.REGION_IDS.index("AFR"))
    state.flags["bot_attacks_turn"] = 3
    assert spend(state, CHINA, 1) == ["media_reserve"]
    state = make_state(control, bots=(1 << CHINA) | (1 << EU), turn=3, round=1)
    state.flags["bot_attacks"] = 1 << (CHINA * 7 + content.REGION_IDS.index("AFR"))
    state.flags["bot_attacks_turn"] = 3
    assert spend(state, CHINA, 1) == ["reserve"]
