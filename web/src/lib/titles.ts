// The three titles: GameKind, rules-registry id, display names.
import { GameKind } from "../gen/warroom/v1/common_pb";

export interface Title {
  kind: GameKind;
  rulesId: string;
  name: string;
  short: string;
}

export const TITLES: Title[] = [
  { kind: GameKind.NEW_COLD_WAR, rulesId: "ncw", name: "New Cold War", short: "NCW" },
  { kind: GameKind.QMG_COLD_WAR, rulesId: "qmg_cw", name: "QMG: The Cold War", short: "QMG CW" },
  { kind: GameKind.QMG_SOUTH_FRONT, rulesId: "qmg_sf", name: "QMG: South Front", short: "QMG SF" },
];

export function titleOf(kind: GameKind | string): Title {
  const t = TITLES.find((x) => x.kind === kind || x.rulesId === kind);
  return t ?? { kind: GameKind.UNSPECIFIED, rulesId: String(kind), name: String(kind), short: String(kind) };
}
