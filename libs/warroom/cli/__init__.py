"""The `warroom` terminal client (typer + rich), built on the SDK."""
