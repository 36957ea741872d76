"""`warroom-fuzz`: long conformance runs of any registered game from the command line."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table

from warroom.engine.harness import HarnessConfig, playout
from warroom.engine.registry import get_rules, register

app = typer.Typer(add_completion=False, help="Random-playout conformance fuzzer for Warroom games.")


@app.command()
def fuzz(
    game: Annotated[str, typer.Option(help="Registry id of the game, e.g. ncw")],
    games: Annotated[int, typer.Option(help="Number of seeded playouts")] = 100,
    seed: Annotated[int, typer.Option(help="First seed; playouts use seed, seed+1, ...")] = 0,
    variant: Annotated[str, typer.Option(help="Variant id (default: every variant in turn)")] = "",
    full_check_every: Annotated[int, typer.Option(help="Apply every option every N steps")] = 1,
    options_per_check: Annotated[
        int, typer.Option(help="Cap options tried per full check (0 = all)")
    ] = 0,
    max_steps: Annotated[int, typer.Option(help="Steps before a game counts as runaway")] = 20_000,
    plugin: Annotated[
        list[str] | None, typer.Option(help="Extra game as id=module:Class (repeatable)")
    ] = None,
) -> None:
    """Play seeded random games and check every step; exit 1 on any failure."""
    for entry in plugin or []:
        game_id, _, target = entry.partition("=")
        register(game_id, target)
    rules = get_rules(game)
    variants = [variant] if variant else [v.id for v in rules.variants()]
    config = HarnessConfig(
        max_steps=max_steps,
        full_check_every=full_check_every,
        options_per_check=options_per_check or None,
    )
    console = Console()
    failures = []
    steps = 0
    columns = (
        *Progress.get_default_columns()[:2],
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console) as progress:
        task = progress.add_task(f"fuzzing {game}", total=games)
        for index in range(games):
            report = playout(rules, seed + index, variants[index % len(variants)], {}, config)
            steps += report.steps
            failures.extend(report.failures)
            progress.advance(task)
    table = Table(title=f"{game}: {games} playouts, {steps} decisions")
    for column in ("check", "seed", "variant", "step", "message"):
        table.add_column(column)
    for failure in failures:
        table.add_row(
            failure.check, str(failure.seed), failure.variant, str(failure.step), failure.message
        )
    if failures:
        console.print(table)
        sys.exit(1)
    console.print(f"[green]all {games} playouts passed[/green] ({steps} decisions)")


if __name__ == "__main__":
    app()
