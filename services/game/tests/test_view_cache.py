"""The per-(frame, viewer) render cache of views (`views.render`, `LiveGame.rendered`).

A move's answer, the mover's own stream and GetView of one version share one rendering;
each seat and the spectator have their own; a new version is rendered afresh. Through gRPC,
every view any seat or the spectator receives (answers, streams, GetView) is exactly what the
rules let that viewer see at that version, and equals a render without the cache.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from services.game.live import Frame, LiveGame
from services.game.tests.helpers import Referee, Replica, answer, create, pick
from services.game.views import render, seat_view
from warroom.engine.match import Action, MatchState
from warroom.v1 import game_pb2


async def _stream(replica: Replica, game_id: str, token: str, out: list[Any]) -> None:
    request = game_pb2.WatchGameRequest(game_id=game_id, token=token)
    async for update in replica.stub.WatchGame(request):
        out.append(update)


def _live(replica: Replica, game_id: str) -> LiveGame:
    return replica.authority.cache.games[game_id]


async def test_every_viewer_gets_its_own_view_through_the_cache(replica: Replica) -> None:
    created = await create(replica.stub, replica.settings, seed=23)
    gid, tokens = created.game_id, list(created.seat_tokens)
    viewers: list[tuple[int | None, str]] = [(0, tokens[0]), (1, tokens[1])]
    viewers.append((None, created.spectator_token))
    streams: dict[int | None, list[game_pb2.WatchGameResponse]] = {v: [] for v, _t in viewers}
    tasks = [asyncio.create_task(_stream(replica, gid, t, streams[v])) for v, t in viewers]
    referee = Referee("toy", 23, "duel")
    states: dict[int, MatchState[Any]] = {0: referee.state()}
    answers: list[tuple[int, game_pb2.SeatView]] = []
    rng = random.Random(5)
    try:
        for _ in range(200):
            views = {}
            for seat, token in enumerate(tokens):
                got = await replica.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=token))
                referee.check_view(got.view, seat)
                views[seat] = got.view
            if views[0].HasField("result"):
                break
            seat = rng.choice([s for s, v in views.items() if v.decision.options])
            option = pick(views[seat], rng)
            assert option is not None
            reply = await answer(replica.stub, gid, tokens[seat], views[seat], option)
            referee.actions.append(Action(seat, option.id))
            states[reply.version] = referee.state()
            answers.append((seat, reply.view))
            live = _live(replica, gid)
            # the answer's rendering is kept for its seat at the new head, and only for it
            kept = live.rendered[(reply.version, seat)]
            assert kept.frame is live.frame and kept.view == reply.view.view
        await asyncio.wait_for(asyncio.gather(*tasks), 10)
    finally:
        for task in tasks:
            task.cancel()
    assert views[0].HasField("result") and len(answers) > 5
    for seat, view in answers:
        referee.check_view(view, seat, states[view.version])
    for viewer, updates in streams.items():
        versions = [u.version for u in updates]
        assert versions == list(range(versions[0], len(answers) + 1)), (viewer, versions)
        for update in updates:
            referee.check_view(update.view, viewer, states[update.version])
            assert update.view.version == update.version
    # the seats' secrets differ, so a view served to the wrong seat would have shown here
    for version in range(len(answers) + 1):
        seen = {v: [u for u in streams[v] if u.version == version] for v in streams}
        if all(seen.values()):
            packed = {v: s[0].view.view.value for v, s in seen.items()}
            assert len(set(packed.values())) == 3, version


async def test_render_is_kept_per_frame_and_viewer(replica: Replica) -> None:
    created = await create(replica.stub, replica.settings, seed=31)
    gid, tokens = created.game_id, list(created.seat_tokens)
    got = await replica.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[0]))
    live = _live(replica, gid)
    head = live.frame
    first = render(live, 0, head)
    assert render(live, 0, head) is first  # kept: the same rendering again
    assert first.view == got.view.view  # GetView's rendering is the one kept
    other = render(live, 1, head)
    assert other is not first and other.view.value != first.view.value  # hands differ
    spectator = render(live, None, head)
    assert spectator.view.value not in (first.view.value, other.view.value)
    # A frame of the same version built anew (from SQL, say) is rendered afresh.
    rebuilt = Frame(head.version, head.state, head.events, head.result)
    assert render(live, 0, rebuilt) is not first
    assert render(live, 0, rebuilt).view == first.view
    # The next version: the view and decision are those of the new frame.
    option = pick(got.view, random.Random(1))
    assert option is not None
    reply = await answer(replica.stub, gid, tokens[0], got.view, option)
    after = render(live, 0, live.frame)
    assert live.frame.version == reply.version == head.version + 1
    assert after.frame is live.frame and after.view == reply.view.view
    assert after.view.value != first.view.value
    # Without keeping (worker threads), a render leaves the cache alone.
    before = dict(live.rendered)
    uncached = seat_view(live, 1, live.frame, 0, [], keep=False)
    assert live.rendered == before
    assert uncached.view == render(live, 1, live.frame).view
