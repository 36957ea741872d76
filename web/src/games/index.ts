// Typed views: unpack SeatView.view (google.protobuf.Any) with a registry of the game view
// messages, and pick the title's adapter.
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { createRegistry } from "@bufbuild/protobuf";
import { file_warroom_games_ncw_v1_ncw } from "../gen/warroom/games/ncw/v1/ncw_pb";
import { file_warroom_games_qmg_cw_v1_qmg_cw } from "../gen/warroom/games/qmg_cw/v1/qmg_cw_pb";
import { file_warroom_games_qmg_sf_v1_qmg_sf } from "../gen/warroom/games/qmg_sf/v1/qmg_sf_pb";
import type { SeatView } from "../gen/warroom/v1/game_pb";
import type { GameCatalog } from "../lib/catalog";
import { type Adapter, type BoardModel, emptyModel } from "./model";
import { ncwAdapter } from "./ncw";
import { qmgCwAdapter } from "./qmg_cw";
import { qmgSfAdapter } from "./qmg_sf";

const registry = createRegistry(file_warroom_games_ncw_v1_ncw, file_warroom_games_qmg_cw_v1_qmg_cw, file_warroom_games_qmg_sf_v1_qmg_sf);

const ADAPTERS: Record<string, Adapter> = { ncw: ncwAdapter, qmg_cw: qmgCwAdapter, qmg_sf: qmgSfAdapter };

export function buildModel(view: SeatView, cat: GameCatalog | null): BoardModel {
  if (!view.view || !cat) return emptyModel();
  const typed = anyUnpack(view.view, registry);
  const adapter = ADAPTERS[view.rulesId];
  if (!typed || !adapter) return emptyModel();
  return adapter(view, typed, cat);
}
