"""Bot players: pure functions from one seat's view to a legal option (no I/O).

A bot receives a `SeatPosition` (the stateless rules, the seat's view message,
the seat, and that seat's options of the decision) and returns a `Choice`. The
true game state never reaches a bot: `position_for` is the one place that reads
a state, and it hands over only what the seat may see.
"""

from warroom.bots.position import Bot, Choice, OptionStats, SeatPosition, position_for

__all__ = ["Bot", "Choice", "OptionStats", "SeatPosition", "position_for"]
