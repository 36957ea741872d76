"""The Extended Example of Play, step by step, asserting each stated outcome."""

from __future__ import annotations

from warroom.games.qmg_cw import board
from warroom.games.qmg_cw.state import SOV, WEST, CwState

from .helpers import act, cid, give, kind, options, pass_reactions, pc, scenario, sp


def _position() -> tuple[CwState, dict[str, int]]:
    state = scenario(
        pieces=[
            ("germany", "soviet", "army"),
            ("east_europe", "soviet", "army"),
            ("east_europe", "soviet", "air"),
            ("white_russia", "soviet", "army"),
            ("moscow", "soviet", "army"),
            ("germany", "western", "army"),
            ("france", "western", "army"),
            ("france", "western", "air"),
            ("italy", "western", "army"),
            ("north_atlantic", "western", "navy"),
            ("balkans", "nationalist", "army"),
        ]
    )
    c = {
        "kondensator": cid("Kondensator Rocket Artillery"),
        "tyulpan": cid("2S4 Tyulpan Mortar"),
        "akula": cid("Project 941 Akula"),
        "preemptive": cid("Preemptive Attack"),
        "seven_days": cid("Seven Days to the River Rhine"),
        "doctrine": cid("Offensive Doctrine"),
        "trident": cid("Trident SLBM"),
        "airlift": cid("Berlin Airlift"),
        "land_battle": cid("Land Battle", 0, SOV),
        "build_army": cid("Build Army", 0, SOV),
        "perestroika": cid("Perestroika"),
        "x1": cid("Build Navy", 0, SOV),
        "x2": cid("Build Navy", 1, SOV),
        "x3": cid("Sputnik"),
    }
    give(state, 0, "prepared", [c["kondensator"], c["tyulpan"], c["akula"]])
    give(state, 0, "espionage", [c["preemptive"], c["seven_days"], c["doctrine"]])
    give(
        state,
        0,
        "hand",
        [c["land_battle"], c["build_army"], c["perestroika"], c["x1"], c["x2"], c["x3"]],
    )
    give(state, 1, "prepared", [c["trident"]])
    give(state, 1, "espionage", [c["airlift"]])
    give(state, 1, "hand", [cid("Build Army", i, WEST) for i in range(5)])
    state.esc[WEST * 3 + SOV] = 1
    state.vp = [10, 10, 10]
    return state, c


def test_extended_example_of_play() -> None:
    """Begin Turn, Air, Action, Supply, Discard, Espionage and Draw steps as the rulebook tells them."""
    state, c = _position()
    west_germany = pc("germany", "western", "army")
    # Begin Turn 1: Preemptive Attack plays a Land Battle in Germany: Soviet vs West escalation 1.
    state = act(state, 0, f"use:{c['preemptive']}")
    state = act(state, 0, f"play:{c['land_battle']}")
    state = act(state, 0, f"x:{west_germany}")
    assert state.level(SOV, WEST) == 1
    # 2: the West uses Berlin Airlift; its Army is not removed.
    assert kind(state) == "defend"
    state = act(state, 1, f"use:{c['airlift']}")
    state = pass_reactions(state)
    assert west_germany in state.pieces
    assert kind(state) == "begin"
    # 3: Kondensator: base cost 3 less the West's level 1 = 2 VPs; escalation 1 -> 3.
    state = act(state, 0, f"use:{c['kondensator']}")
    state = act(state, 0, f"t:{WEST}")
    assert state.vp[SOV] == 8
    assert state.level(SOV, WEST) == 3
    # 4: eliminate (no Air Defense from France), then the West discards 3 cards.
    state = act(state, 0, f"x:{west_germany}")
    assert kind(state) == "defend"
    assert options(state, 1) == ["pass"]
    state = act(state, 1, "pass")
    assert west_germany not in state.pieces
    for _ in range(3):
        state = act(state, 1, options(state, 1)[0])
    assert len(state.seats[1].hand) == 2
    state = pass_reactions(state)
    # 5: Seven Days to the River Rhine: +4 VP.
    state = act(state, 0, f"use:{c['seven_days']}")
    state = pass_reactions(state)
    assert state.vp[SOV] == 12
    state = act(state, 0, "done")
    # Air step: discard a card to rebase the Air Force from East Europe to Germany.
    assert kind(state) == "air"
    af = pc("east_europe", "soviet", "air")
    state = act(state, 0, f"rebase:{af}:{sp('germany')}")
    state = act(state, 0, f"d:{c['x1']}")
    assert pc("germany", "soviet", "air") in state.pieces and af not in state.pieces
    # Action step 1: Build Army in Italy.
    state = act(state, 0, f"play:{c['build_army']}")
    state = act(state, 0, f"p:0:{sp('italy')}")
    # 2: 2S4 Tyulpan Mortar battles in Italy: escalation 3 -> 4.
    assert kind(state) == "react"
    state = act(state, 0, f"use:{c['tyulpan']}")
    state = act(state, 0, f"t:{WEST}")
    assert state.vp[SOV] == 12
    assert state.level(SOV, WEST) == 4
    west_italy = pc("italy", "western", "army")
    state = act(state, 0, f"x:{west_italy}")
    # 3: Air Defense with France's Air Force, intercepted by the Air Force in Germany.
    state = act(state, 1, f"ad:{pc('france', 'western', 'air')}")
    state = act(state, 0, f"ic:{pc('germany', 'soviet', 'air')}")
    assert options(state, 1) == ["pass"]
    state = act(state, 1, "pass")
    assert west_italy not in state.pieces
    # 4: Offensive Doctrine builds a Soviet Army in France.
    assert kind(state) == "react"
    state = act(state, 0, f"use:{c['doctrine']}")
    state = act(state, 0, f"p:0:{sp('france')}")
    state = pass_reactions(state)
    # Supply step: every Soviet piece is in supply (nothing to decide); Discard step: none.
    supply = board.Supply(state)
    assert all(supply.supplied(p) for p in state.pieces if p // 4 % 8 == 0)
    assert kind(state) == "discard_step"
    state = act(state, 0, "pass")
    # Espionage step: discard a card to prepare an Espionage card face down.
    state = act(state, 0, f"espdisc:{c['x2']}")
    state = act(state, 0, f"esp:{c['perestroika']}")
    assert state.seats[0].espionage == [c["perestroika"]]
    # Draw step: 6 cards join the 1 card left in hand.
    assert len(state.seats[0].hand) == 7
    assert c["x3"] in state.seats[0].hand
    assert state.active == WEST
