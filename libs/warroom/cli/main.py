"""`warroom`: the reference terminal client, built on the Python SDK (public gRPC API only).

    warroom login alice                 # guest login (add --password/--register for an account)
    warroom bots ncw                    # play now against bots, interactively
    warroom queue ncw --play            # public matchmaking, then play
    warroom tables / create / join      # custom tables
    warroom play [GAME_ID]              # (re)join a game you have a seat in
    warroom games [--finished]          # your games: whose turn, clock, last activity
    warroom live [GAME]                 # live games anyone may watch
    warroom watch GAME_ID [--token T]   # spectate (no token: asked of the lobby)
    warroom invite PLAYER / accept PARTY / party / leave-party   # parties with consent
    warroom tickets / cancel TICKET     # your matchmaking ticket
    warroom replay GAME_ID --out f.json
    warroom leaderboard ncw

The session (lobby address, login token, seat tokens and each game's endpoint) is kept in
`$WARROOM_CLI_HOME/session.json` (default `~/.config/warroom`). Game calls go to the game
endpoint of the game's assignment, unless `--game-endpoint` / `WARROOM_GAME` (or the one
given at login) overrides it.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import grpc
import typer
from google.protobuf import json_format
from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

from warroom.cli.render import event_text, render_view, result_text
from warroom.sdk import (
    CatalogClient,
    Client,
    GameSession,
    WarroomError,
    game_kind_of,
    game_name_of,
)
from warroom.v1 import catalog_pb2, common_pb2, game_pb2, lobby_pb2

T = TypeVar("T")

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Warroom terminal client: log in, queue, play, watch and export games.",
    pretty_exceptions_enable=False,
)
console = Console(highlight=False)
err = Console(stderr=True, highlight=False)

LobbyOption = Annotated[
    str | None, typer.Option("--lobby", envvar="WARROOM_LOBBY", help="Lobby host:port.")
]
GameOption = Annotated[
    str | None,
    typer.Option(
        "--game-endpoint",
        envvar=["WARROOM_GAME", "WARROOM_GAME_ENDPOINT"],
        help="Game service host:port, overriding the one assignments name "
        "(default: the one given at login, else the game's assignment).",
    ),
]


# --------------------------------------------------------------------------- session file
def _home() -> Path:
    return Path(os.environ.get("WARROOM_CLI_HOME") or Path.home() / ".config" / "warroom")


def load_session() -> dict[str, Any]:
    """The saved CLI session (empty when none)."""
    try:
        data = json.loads((_home() / "session.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_session(data: dict[str, Any]) -> None:
    """Write the CLI session (mode 0600: it holds tokens)."""
    home = _home()
    home.mkdir(parents=True, exist_ok=True)
    path = home / "session.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2))
    tmp.chmod(0o600)
    tmp.replace(path)


def remember_assignment(assignment: common_pb2.Assignment) -> None:
    """Keep a seat token so `warroom play` can (re)join later."""
    session = load_session()
    games = session.setdefault("games", {})
    games[assignment.game_id] = json_format.MessageToDict(
        assignment, preserving_proto_field_name=True
    )
    session["last_game"] = assignment.game_id
    if assignment.game_endpoint:
        session["learned_game_endpoint"] = assignment.game_endpoint
    save_session(session)


def saved_assignment(game_id: str) -> common_pb2.Assignment:
    """The assignment saved for a game (only the game id when none was saved)."""
    session = load_session()
    assignment = common_pb2.Assignment(game_id=game_id)
    saved = session.get("games", {}).get(game_id)
    if isinstance(saved, dict):
        json_format.ParseDict(saved, assignment, ignore_unknown_fields=True)
    if not assignment.game_endpoint:
        assignment.game_endpoint = str(session.get("learned_game_endpoint", ""))
    return assignment


def _client(lobby: str | None, game: str | None = None, *, need_login: bool = True) -> Client:
    """A client of the lobby (option, else the session's) and of the game endpoint override.

    The override is `game` (--game-endpoint / WARROOM_GAME), else the one saved at login;
    without one, game sessions use the endpoint of the game's assignment.
    """
    session = load_session()
    endpoint = lobby or session.get("lobby") or "localhost:50051"
    same_lobby = endpoint == session.get("lobby", endpoint)
    saved_game = str(session.get("game_endpoint") or "") if same_lobby else ""
    client = Client(
        endpoint,
        game=game or saved_game or None,
        bots=os.environ.get("WARROOM_BOTS") or "localhost:50053",
        token=str(session.get("token", "")) if same_lobby else "",
    )
    client.player_id = str(session.get("player_id", ""))
    if need_login and not client.token:
        err.print("Not logged in: run `warroom login NAME` first.")
        raise typer.Exit(2)
    return client


def _run(make: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine; turn API errors into a message and exit status 1."""
    try:
        return asyncio.run(_closing(make))
    except WarroomError as error:
        reason = f" {error.reason}" if error.reason else ""
        err.print(f"[red]{error.code.name}{reason}[/]: {error.message or error}")
        if error.code == grpc.StatusCode.UNAVAILABLE:
            err.print("Is the platform running? `make run` starts it.")
        if error.code == grpc.StatusCode.UNAUTHENTICATED:
            err.print("Your login expired: `warroom login NAME`.")
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


async def _closing(make: Callable[[], Awaitable[T]]) -> T:
    return await make()


def _bot(spec: str) -> common_pb2.BotSpec:
    """ "kind[:difficulty]" as a BotSpec (e.g. "ismcts:expert", "random")."""
    kind, _, difficulty = spec.partition(":")
    return common_pb2.BotSpec(kind=kind, difficulty=difficulty)


def _kind(game: str) -> int:
    try:
        return game_kind_of(game)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None


# --------------------------------------------------------------------------- players
@app.command()
def login(
    name: Annotated[str, typer.Argument(help="Display name (guest) or account name.")],
    password: Annotated[str, typer.Option(help="Account password (empty: guest).")] = "",
    register: Annotated[bool, typer.Option(help="Create the account if the name is free.")] = False,
    lobby: LobbyOption = None,
    game_endpoint: GameOption = None,
) -> None:
    """Log in and remember the token (and the lobby and game endpoints given)."""
    client = _client(lobby, game_endpoint, need_login=False)

    async def go() -> lobby_pb2.LoginResponse:
        async with client:
            return await client.login(name, password, register=register)

    response = _run(go)
    session = load_session()
    session.update(
        lobby=client.lobby_endpoint,
        game_endpoint=game_endpoint or "",
        token=response.token,
        player_id=response.player_id,
        name=response.display_name,
    )
    save_session(session)
    kind = "guest" if response.guest else "player"
    console.print(f"Logged in as {response.display_name} ({kind} {response.player_id}).")


@app.command()
def leaderboard(
    game: Annotated[str, typer.Argument(help="Game: ncw, qmg_cw, qmg_sf.")] = "ncw",
    size: Annotated[int, typer.Option(help="Entries to show.")] = 20,
    lobby: LobbyOption = None,
) -> None:
    """A game's leaderboard."""
    client = _client(lobby)
    kind = _kind(game)

    async def go() -> lobby_pb2.GetLeaderboardResponse:
        async with client:
            return await client.leaderboard(kind, page_size=size)

    response = _run(go)
    table = Table(title=f"Leaderboard: {game_name_of(kind)}", title_justify="left")
    for column in ("rank", "player", "rating", "mu", "sigma", "games"):
        table.add_column(column)
    for entry in response.entries:
        name = entry.player.display_name + (" [bot]" if entry.player.bot else "")
        table.add_row(
            str(entry.rank),
            name,
            f"{entry.rating.ordinal:.2f}",
            f"{entry.rating.mu:.2f}",
            f"{entry.rating.sigma:.2f}",
            str(entry.rating.games),
        )
    console.print(table)


@app.command()
def me(lobby: LobbyOption = None) -> None:
    """Your profile and ratings."""
    client = _client(lobby)

    async def go() -> lobby_pb2.Player:
        async with client:
            return await client.player()

    player = _run(go)
    console.print(f"{player.display_name} ({player.player_id}){' guest' if player.guest else ''}")
    for rating in player.ratings:
        console.print(
            f"  {game_name_of(rating.game)}: {rating.ordinal:.2f} "
            f"(mu {rating.mu:.2f}, sigma {rating.sigma:.2f}, {rating.games} games)"
        )


# --------------------------------------------------------------------------- tables
def _table_row(table: lobby_pb2.Table) -> list[str]:
    seats = ", ".join(
        f"{s.side or s.index}:{s.display_name or ('bot' if s.is_bot else 'open')}"
        for s in table.seats
    )
    return [
        table.table_id,
        game_name_of(table.game),
        table.variant,
        lobby_pb2.Table.Status.Name(table.status).removeprefix("STATUS_").lower(),
        str(table.open_seats),
        seats,
    ]


def _print_tables(tables: list[lobby_pb2.Table], title: str) -> None:
    out = Table(title=title, title_justify="left")
    for column in ("table", "game", "variant", "status", "open", "seats"):
        out.add_column(column)
    for table in tables:
        out.add_row(*_table_row(table))
    console.print(out)


@app.command()
def tables(
    game: Annotated[str, typer.Option(help="Only this game.")] = "",
    variant: Annotated[str, typer.Option(help="Only this variant.")] = "",
    open_only: Annotated[bool, typer.Option("--open", help="Only tables with open seats.")] = False,
    lobby: LobbyOption = None,
) -> None:
    """List public tables."""
    client = _client(lobby)
    kind = _kind(game) if game else 0

    async def go() -> lobby_pb2.ListTablesResponse:
        async with client:
            return await client.tables(kind, variant, open_only=open_only)

    _print_tables(list(_run(go).tables), "Tables")


@app.command()
def create(
    game: Annotated[str, typer.Argument(help="Game: ncw, qmg_cw, qmg_sf.")] = "ncw",
    variant: Annotated[str, typer.Option(help="Variant id (empty: the default).")] = "",
    side: Annotated[str, typer.Option(help="Your side preference.")] = "",
    private: Annotated[bool, typer.Option(help="Private table with an invite code.")] = False,
    spectators: Annotated[bool, typer.Option(help="Allow spectators.")] = True,
    bot: Annotated[str, typer.Option(help="Bot for seats filled at start: kind[:level].")] = "",
    start_now: Annotated[bool, typer.Option(help="Start at once, other seats bots.")] = False,
    lobby: LobbyOption = None,
) -> None:
    """Create a table (the host starts it with `warroom start TABLE`)."""
    client = _client(lobby)
    kind = _kind(game)

    async def go() -> lobby_pb2.CreateTableResponse:
        async with client:
            return await client.create_table(
                kind,
                variant,
                private=private,
                allow_spectators=spectators,
                host_side=side,
                start_now=start_now,
                fill_bot=_bot(bot) if bot else None,
            )

    response = _run(go)
    _print_tables([response.table], "Created")
    if response.table.invite_code:
        console.print(f"Invite code: [bold]{response.table.invite_code}[/]")
    if response.assignment.game_id:
        remember_assignment(response.assignment)
        console.print(f"Started: `warroom play {response.assignment.game_id}`")
    if response.table.spectator_token:
        console.print(
            f"Spectators: `warroom watch {response.table.game_id} "
            f"--token {response.table.spectator_token}`"
        )


@app.command()
def join(
    table_id: Annotated[str, typer.Argument(help="Table id.")],
    side: Annotated[str, typer.Option(help="Side preference.")] = "",
    code: Annotated[str, typer.Option(help="Invite code of a private table.")] = "",
    lobby: LobbyOption = None,
) -> None:
    """Join a table."""
    client = _client(lobby)

    async def go() -> lobby_pb2.Table:
        async with client:
            return await client.join_table(table_id, side=side, invite_code=code)

    _print_tables([_run(go)], "Joined")


@app.command()
def leave(table_id: str, lobby: LobbyOption = None) -> None:
    """Leave a table before it starts."""
    client = _client(lobby)

    async def go() -> lobby_pb2.Table:
        async with client:
            return await client.leave_table(table_id)

    _print_tables([_run(go)], "Left")


@app.command()
def start(
    table_id: str,
    play_: Annotated[bool, typer.Option("--play", help="Play right away.")] = False,
    lobby: LobbyOption = None,
    game_endpoint: GameOption = None,
) -> None:
    """Host only: fill empty seats with bots and start the table."""
    client = _client(lobby, game_endpoint)

    async def go() -> lobby_pb2.StartTableResponse:
        async with client:
            response = await client.start_table(table_id)
            if play_ and response.assignment.game_id:
                remember_assignment(response.assignment)
                await play_game(client, client.game(response.assignment), auto=None)
            return response

    response = _run(go)
    if response.assignment.game_id:
        remember_assignment(response.assignment)
        console.print(f"Started game {response.assignment.game_id}: `warroom play`")


# --------------------------------------------------------------------------- matchmaking
@app.command()
def queue(
    game: Annotated[str, typer.Argument(help="Game: ncw, qmg_cw, qmg_sf.")] = "ncw",
    variant: Annotated[list[str] | None, typer.Option(help="Acceptable variant(s).")] = None,
    side: Annotated[list[str] | None, typer.Option(help="Side preference(s), best first.")] = None,
    party: Annotated[
        list[str] | None, typer.Option(help="Party member player id(s) (they accepted).")
    ] = None,
    with_party: Annotated[bool, typer.Option(help="Queue your whole party.")] = False,
    allow_bots: Annotated[bool, typer.Option(help="Fill with bots after a wait.")] = False,
    bot_fill_after: Annotated[int, typer.Option(help="Seconds before bots fill.")] = 30,
    play_: Annotated[bool, typer.Option("--play", help="Play once matched.")] = False,
    auto: Annotated[str | None, typer.Option(help="Let 'random'/'first' choose (scripts).")] = None,
    lobby: LobbyOption = None,
    game_endpoint: GameOption = None,
) -> None:
    """Queue for matchmaking, showing the live ticket status until matched."""
    client = _client(lobby, game_endpoint)
    kind = _kind(game)

    async def go() -> common_pb2.Assignment:
        async with client:
            ticket = await client.enqueue(
                kind,
                variants=variant or (),
                sides=side or (),
                party=party or (),
                with_party=with_party,
                allow_bots=allow_bots,
                bot_fill_after_s=bot_fill_after,
            )
            status = Text(f"ticket {ticket.ticket_id}: queued")
            try:
                with Live(status, console=console, refresh_per_second=4, transient=False) as live:

                    def show(update: lobby_pb2.WatchTicketResponse) -> None:
                        name = lobby_pb2.TicketStatus.Name(update.status).removeprefix(
                            "TICKET_STATUS_"
                        )
                        live.update(
                            Text(
                                f"ticket {ticket.ticket_id}: {name}  waited {update.waited_s:.0f}s"
                                f"  pool {update.pool_size}  window ±{update.rating_window:.1f}"
                            )
                        )

                    assignment = await client.wait_for_match(ticket.ticket_id, show)
            except (KeyboardInterrupt, asyncio.CancelledError):
                await client.cancel_ticket(ticket.ticket_id)
                err.print("Ticket cancelled.")
                raise
            remember_assignment(assignment)
            console.print(
                f"Matched: game {assignment.game_id}, seat {assignment.seat} ({assignment.side})"
            )
            if play_:
                await play_game(client, client.game(assignment), auto=auto)
            return assignment

    _run(go)


# --------------------------------------------------------------------------- playing
def _choose_auto(view: game_pb2.SeatView, how: str) -> int:
    options = view.decision.options
    if how == "first":
        return 0
    undo_free = [i for i, o in enumerate(options) if o.kind != common_pb2.OPTION_KIND_UNDO]
    undo_free = undo_free or list(range(len(options)))
    return random.choice(undo_free)


async def view_catalog(
    catalogs: CatalogClient, view: game_pb2.SeatView
) -> catalog_pb2.Catalog | None:
    """The catalogue of a view's game (cached on disk), or None when the lobby has none."""
    try:
        return await catalogs.for_view(view)
    except WarroomError as error:
        err.print(f"[yellow]no game catalogue ({error.code.name}): showing ids[/]")
        return None


def needs_catalog(catalog: catalog_pb2.Catalog | None, view: game_pb2.SeatView) -> bool:
    """Whether the view names a content version other than the catalogue's."""
    return bool(view.content_version) and (
        catalog is None or catalog.content_version != view.content_version
    )


def catalog_client(client: Client) -> CatalogClient:
    """The CLI's catalogue client: cached in the CLI home, refreshed when a version changes."""
    return CatalogClient.for_client(client, cache_dir=_home() / "catalog")


async def _prompt(view: game_pb2.SeatView, catalog: catalog_pb2.Catalog | None = None) -> int:
    count = len(view.decision.options)
    while True:
        answer = await asyncio.to_thread(input, f"Choose 1-{count} (r: redraw, q: quit) > ")
        answer = answer.strip().lower()
        if answer in ("q", "quit", "exit"):
            raise KeyboardInterrupt
        if answer in ("r", ""):
            render_view(view, console, catalog=catalog)
            continue
        if answer.isdigit() and 1 <= int(answer) <= count:
            return int(answer) - 1
        console.print(f"Type a number from 1 to {count}.")


async def play_game(
    client: Client,
    session: GameSession,
    *,
    auto: str | None,
    quiet: bool = False,
) -> game_pb2.SeatView:
    """Play one seat to the end: render, prompt (or auto-choose), submit, stream others' moves."""
    answered_from = -1
    last: game_pb2.SeatView | None = None
    catalogs = catalog_client(client)
    catalog: catalog_pb2.Catalog | None = None
    fetched = False

    def reconnected(error: WarroomError) -> None:
        err.print(f"[yellow]connection lost ({error.code.name}); reconnecting ...[/]")

    first = True
    async for update in session.watch(0, on_reconnect=reconnected):
        view = update.view
        if not view.game_id:
            continue
        if not quiet:
            for event in update.events:
                console.print(event_text(event, view.seats))
        last = view
        if not quiet and (not fetched or needs_catalog(catalog, view)):
            catalog, fetched = await view_catalog(catalogs, view), True
        if view.HasField("result"):
            if not quiet:
                render_view(view, console, with_decision=False, catalog=catalog)
            break
        if first and not quiet:
            render_view(view, console, catalog=catalog)
            first = False
        while view.decision.options and view.version > answered_from:
            if not quiet and auto is None:
                render_view(view, console, catalog=catalog)
            index = _choose_auto(view, auto) if auto else await _prompt(view, catalog)
            option = view.decision.options[index]
            try:
                response = await session.submit(
                    view.decision.decision_id, option.id, expected_version=view.version
                )
            except WarroomError as error:
                if error.code not in (
                    grpc.StatusCode.ABORTED,
                    grpc.StatusCode.FAILED_PRECONDITION,
                    grpc.StatusCode.INVALID_ARGUMENT,
                ):
                    raise
                if not quiet:
                    console.print(f"[yellow]{error.code.name}: {error.message}[/] - refreshing")
                view = await session.view()
                last = view
                if view.HasField("result"):
                    break
                continue
            answered_from = view.version
            if not quiet:
                console.print(Text(f"You chose: {option.label or option.id}", style="cyan"))
            view = response.view
            last = view
            if view.HasField("result"):
                break
        if last is not None and last.HasField("result"):
            if not quiet:
                console.print(result_text(last))
            break
    if last is None:
        last = await session.view()
    return last


def _assignment_for(game_id: str | None, token: str | None) -> common_pb2.Assignment:
    session = load_session()
    game_id = game_id or session.get("last_game")
    if not game_id:
        err.print("No game: pass GAME_ID (and --token), or start one with `warroom bots`.")
        raise typer.Exit(2)
    assignment = saved_assignment(str(game_id))
    if token:
        assignment.seat_token = token
    if not assignment.seat_token:
        err.print(f"No seat token for game {game_id}: pass --token.")
        raise typer.Exit(2)
    return assignment


@app.command()
def play(
    game_id: Annotated[str | None, typer.Argument(help="Game id (default: your last).")] = None,
    token: Annotated[str | None, typer.Option(help="Seat token (default: saved).")] = None,
    auto: Annotated[str | None, typer.Option(help="Let 'random'/'first' choose (scripts).")] = None,
    lobby: LobbyOption = None,
    game_endpoint: GameOption = None,
) -> None:
    """Play (or resume) a game you have a seat in, interactively (a seat token not saved
    here is recovered from the lobby)."""
    saved = saved_assignment(game_id) if game_id else None
    if saved is not None and not saved.seat_token and not token:
        assignment = _recover_seat(saved.game_id, lobby)
    else:
        assignment = _assignment_for(game_id, token)
    client = _client(lobby, game_endpoint, need_login=False)

    async def go() -> game_pb2.SeatView:
        async with client:
            return await play_game(client, client.game(assignment), auto=auto)

    _run(go)


@app.command()
def bots(
    game: Annotated[str, typer.Argument(help="Game: ncw, qmg_cw, qmg_sf.")] = "ncw",
    variant: Annotated[str, typer.Option(help="Variant id (empty: default).")] = "",
    side: Annotated[str, typer.Option(help="Your side.")] = "",
    bot: Annotated[str, typer.Option(help="Opponent bots: kind[:level].")] = "heuristic",
    auto: Annotated[str | None, typer.Option(help="Let 'random'/'first' play you.")] = None,
    quiet: Annotated[bool, typer.Option(help="Print only the result.")] = False,
    lobby: LobbyOption = None,
    game_endpoint: GameOption = None,
) -> None:
    """Play now against bots: a table whose other seats are bots, started at once."""
    client = _client(lobby, game_endpoint)
    kind = _kind(game)

    async def go() -> game_pb2.SeatView:
        async with client:
            assignment = await client.play_now(kind, variant, side=side, bot=_bot(bot))
            remember_assignment(assignment)
            console.print(
                f"Game {assignment.game_id}: you play seat {assignment.seat} ({assignment.side})"
            )
            final = await play_game(client, client.game(assignment), auto=auto, quiet=quiet)
            if quiet and final.HasField("result"):
                console.print(result_text(final))
            return final

    _run(go)


@app.command()
def watch(
    game_id: Annotated[str, typer.Argument(help="Game id.")],
    token: Annotated[str, typer.Option(help="Spectator (or seat) token.")] = "",
    lobby: LobbyOption = None,
    game_endpoint: GameOption = None,
) -> None:
    """Spectate a game: the public view and every public event as it happens."""
    assignment = saved_assignment(game_id)
    client = _client(lobby, game_endpoint, need_login=not (token or assignment.seat_token))

    async def go() -> None:
        async with client:
            if not token and not assignment.seat_token:
                access = await client.spectate(game_id)
                assignment.seat_token = access.spectator_token
                assignment.game_endpoint = assignment.game_endpoint or access.game_endpoint
            session = client.game(assignment, token=token)
            first = True
            async for update in session.watch(0):
                if first:
                    catalog = await view_catalog(catalog_client(client), update.view)
                    render_view(update.view, console, with_decision=False, catalog=catalog)
                    first = False
                for event in update.events:
                    console.print(event_text(event, update.view.seats))
                if update.view.HasField("result"):
                    console.print(result_text(update.view))

    _run(go)


def _recover_seat(game_id: str, lobby: str | None) -> common_pb2.Assignment:
    """The caller's seat of a game, recovered from the lobby, and saved."""
    client = _client(lobby)

    async def go() -> common_pb2.Assignment:
        async with client:
            return await client.seat_access(game_id)

    assignment = _run(go)
    remember_assignment(assignment)
    return assignment


def _stamp(value: Any) -> str:
    """A Timestamp as local-free UTC text ("" when unset)."""
    return value.ToDatetime().strftime("%Y-%m-%d %H:%M") if value.seconds else ""


@app.command()
def games(
    finished: Annotated[bool, typer.Option(help="Also recently finished games.")] = False,
    game: Annotated[str, typer.Option(help="Only this game.")] = "",
    lobby: LobbyOption = None,
) -> None:
    """Your games: whose turn it is, your clock and the last activity (correspondence)."""
    client = _client(lobby)
    kind = _kind(game) if game else 0

    async def go() -> list[lobby_pb2.MyGame]:
        async with client:
            return await client.my_games(include_finished=finished, game=kind)

    out = Table(title="Your games", title_justify="left")
    for column in ("game id", "game", "variant", "you", "status", "turn", "clock", "last move"):
        out.add_column(column)
    for g in _run(go):
        status = lobby_pb2.Table.Status.Name(g.status).removeprefix("STATUS_").lower()
        turn = ",".join(map(str, g.to_act))
        turn = "?" if not g.live_info else ("YOU" if g.my_turn else turn)
        you = f"{g.seat} {g.side}"
        row = [g.game_id, game_name_of(g.game), g.variant, you, status, turn]
        out.add_row(*row, _stamp(g.clock_deadline), _stamp(g.last_activity))
    console.print(out)
    console.print("Resume one with `warroom play GAME_ID` (the seat token is recovered).")


@app.command()
def live(
    game: Annotated[str, typer.Argument(help="Game (empty: all).")] = "",
    lobby: LobbyOption = None,
) -> None:
    """Live games anyone may watch: public tables and matchmade games."""
    client = _client(lobby)
    kind = _kind(game) if game else 0

    async def go() -> list[lobby_pb2.LiveGame]:
        async with client:
            return await client.live_games(kind)

    out = Table(title="Live games", title_justify="left")
    for column in ("game id", "game", "variant", "source", "seats"):
        out.add_column(column)
    for g in _run(go):
        seats = ", ".join(f"{s.side}:{s.display_name}" for s in g.seats)
        source = "matchmade" if g.matchmade else "table"
        out.add_row(g.game_id, game_name_of(g.game), g.variant, source, seats)
    console.print(out)
    console.print("Watch one with `warroom watch GAME_ID`.")


@app.command()
def party(lobby: LobbyOption = None) -> None:
    """Your party and the invitations waiting for your answer."""
    client = _client(lobby)

    async def go() -> lobby_pb2.GetPartyResponse:
        async with client:
            return await client.party()

    answer = _run(go)
    if answer.HasField("party"):
        console.print(f"Party {answer.party.party_id} (leader {answer.party.leader_player_id}):")
        for m in answer.party.members:
            console.print(f"  {m.display_name} ({m.player_id}){'' if m.accepted else ' invited'}")
    else:
        console.print("You are in no party: `warroom invite PLAYER_ID` starts one.")
    for invitation in answer.invites:
        console.print(
            f"Invitation from {invitation.leader_display_name} to party {invitation.party_id}: "
            f"`warroom accept {invitation.party_id}` or `warroom decline {invitation.party_id}`"
        )


def _lobby_call(make: Callable[[Client], Awaitable[T]], lobby: str | None) -> T:
    client = _client(lobby)

    async def go() -> T:
        async with client:
            return await make(client)

    return _run(go)


@app.command()
def invite(player_id: str, lobby: LobbyOption = None) -> None:
    """Invite a player to your party; they join only by accepting."""
    joined = _lobby_call(lambda c: c.invite(player_id), lobby)
    console.print(f"Invited {player_id} to party {joined.party_id}.")


@app.command()
def accept(party_id: str, lobby: LobbyOption = None) -> None:
    """Accept a party invitation (its leader may then queue you with the party)."""
    joined = _lobby_call(lambda c: c.accept_invite(party_id), lobby)
    console.print(f"You joined party {joined.party_id} led by {joined.leader_player_id}.")


@app.command()
def decline(party_id: str, lobby: LobbyOption = None) -> None:
    """Decline a party invitation."""
    _lobby_call(lambda c: c.decline_invite(party_id), lobby)
    console.print(f"Declined party {party_id}.")


@app.command("leave-party")
def leave_party(lobby: LobbyOption = None) -> None:
    """Leave your party."""
    _lobby_call(lambda c: c.leave_party(), lobby)
    console.print("You left your party.")


@app.command()
def tickets(lobby: LobbyOption = None) -> None:
    """Your active matchmaking ticket (cancel it with `warroom cancel TICKET_ID`)."""
    found = _lobby_call(lambda c: c.my_tickets(), lobby)
    if not found:
        console.print("No active ticket.")
    for t in found:
        status = lobby_pb2.TicketStatus.Name(t.status).removeprefix("TICKET_STATUS_")
        extra = f" -> game {t.assignment.game_id}" if t.HasField("assignment") else ""
        console.print(f"{t.ticket_id} {t.rules_id} {status} players {list(t.player_ids)}{extra}")


@app.command()
def cancel(ticket_id: str, lobby: LobbyOption = None) -> None:
    """Cancel a matchmaking ticket."""
    ticket = _lobby_call(lambda c: c.cancel_ticket(ticket_id), lobby)
    console.print(f"{ticket.ticket_id}: {lobby_pb2.TicketStatus.Name(ticket.status)}")


@app.command()
def replay(
    game_id: Annotated[str, typer.Argument(help="Game id.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="File to write (JSON).")],
    token: Annotated[str, typer.Option(help="Seat or spectator token (default: saved).")] = "",
    lobby: LobbyOption = None,
    game_endpoint: GameOption = None,
) -> None:
    """Export a finished game's replay (seed, options, every action) as JSON."""
    assignment = saved_assignment(game_id)
    client = _client(lobby, game_endpoint, need_login=False)

    async def go() -> game_pb2.GetReplayResponse:
        async with client:
            return await client.game(assignment, token=token).replay()

    response = _run(go)
    out.write_text(
        json_format.MessageToJson(response, preserving_proto_field_name=True, indent=2) + "\n"
    )
    console.print(f"Replay of {game_id}: {len(response.actions)} actions -> {out}")


@app.command("list-bots")
def list_bots(game: Annotated[str, typer.Argument(help="Game (empty: all).")] = "") -> None:
    """The bot kinds and difficulties the bot service offers."""
    client = _client(None, need_login=False)
    kind = _kind(game) if game else 0

    async def go() -> list[Any]:
        async with client:
            return await client.bots().list_bots(kind)

    table = Table(title="Bots", title_justify="left")
    for column in ("kind", "games", "difficulties", "description"):
        table.add_column(column)
    for entry in _run(go):
        table.add_row(
            entry.kind,
            ", ".join(game_name_of(g) for g in entry.games),
            ", ".join(entry.difficulties),
            entry.description,
        )
    console.print(table)


if __name__ == "__main__":
    app()
