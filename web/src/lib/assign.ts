// Turning an Assignment into a saved seat pass and opening the game.
import type { Assignment } from "../gen/warroom/v1/common_pb";
import { saveSeat, session } from "./session";
import { titleOf } from "./titles";
import { go } from "./router";

export function openAssignment(a: Assignment): void {
  saveSeat({
    gameId: a.gameId,
    token: a.seatToken,
    seat: a.seat,
    side: a.side,
    rulesId: titleOf(a.game).rulesId,
    variant: a.variant,
    savedAt: Date.now(),
    playerId: session.value?.playerId ?? "",
  });
  go(`/game/${a.gameId}`);
}
