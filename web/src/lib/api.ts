// Connect clients for every Warroom service, over one transport to the gateway (same origin).
// Lobby calls carry the login token as `authorization: Bearer`; game calls carry seat or
// spectator tokens in their request messages.
import { createClient, type Client, type Interceptor, ConnectError, Code } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { LobbyService } from "../gen/warroom/v1/lobby_pb";
import { GameService } from "../gen/warroom/v1/game_pb";
import { BotService } from "../gen/warroom/v1/bots_pb";
import { session, setSession } from "./session";
import { report } from "./errors";

const auth: Interceptor = (next) => async (req) => {
  const token = session.value?.token;
  if (token && !req.header.has("authorization")) req.header.set("authorization", `Bearer ${token}`);
  try {
    return await next(req);
  } catch (err) {
    // An expired or revoked login: back to the login page (game tokens are separate).
    if (token && err instanceof ConnectError && err.code === Code.Unauthenticated && req.service.typeName === LobbyService.typeName && req.method.name !== "Login") {
      setSession(null);
    }
    throw err;
  }
};

export const transport = createConnectTransport({
  baseUrl: globalThis.location?.origin ?? "http://127.0.0.1:8080",
  useBinaryFormat: true,
  interceptors: [auth],
});

export const lobby: Client<typeof LobbyService> = createClient(LobbyService, transport);
export const games: Client<typeof GameService> = createClient(GameService, transport);
export const bots: Client<typeof BotService> = createClient(BotService, transport);

/** A short human-readable message for any error a call threw (also shown in the banner). */
export function errorText(err: unknown): string {
  return report(err);
}

/** True for errors worth retrying after a pause (network down, server restarting). */
export function isTransient(err: unknown): boolean {
  if (!(err instanceof ConnectError)) return true;
  return [Code.Unavailable, Code.DeadlineExceeded, Code.Unknown, Code.Internal, Code.Aborted, Code.ResourceExhausted, Code.Canceled].includes(err.code);
}

export function isUnauthenticated(err: unknown): boolean {
  return err instanceof ConnectError && err.code === Code.Unauthenticated;
}
