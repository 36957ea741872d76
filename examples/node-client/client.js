#!/usr/bin/env node
// A complete Warroom client in Node.js, built only from the .proto files in proto/:
// log in as a guest, start a table against bots ("play now"), follow the game stream and
// answer every decision of our seat with a random legal option until the game ends.
//
//   npm ci && node client.js
//
// Environment: WARROOM_LOBBY (localhost:50051), WARROOM_GAME (overrides the assignment's
// game endpoint), WARROOM_GAME_KIND (GAME_KIND_NEW_COLD_WAR), WARROOM_RULES_ID (a registry id
// instead of the kind), WARROOM_VARIANT (default variant), WARROOM_BOT (kind[:difficulty],
// default heuristic), WARROOM_NAME (node-client), WARROOM_TIMEOUT_S (600).
'use strict';

const path = require('path');
const crypto = require('crypto');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = process.env.WARROOM_PROTO_ROOT || path.resolve(__dirname, '..', '..', 'proto');
const env = (name, fallback) => process.env[name] || fallback;

function loadApi() {
  const definition = protoLoader.loadSync(
    ['warroom/v1/lobby.proto', 'warroom/v1/game.proto', 'warroom/v1/catalog.proto'],
    { includeDirs: [PROTO_ROOT], keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true },
  );
  return grpc.loadPackageDefinition(definition).warroom.v1;
}

const unary = (client, method, request, metadata) =>
  new Promise((resolve, reject) => {
    const deadline = new Date(Date.now() + 15000);
    client[method](request, metadata || new grpc.Metadata(), { deadline }, (error, response) =>
      error ? reject(Object.assign(error, { method })) : resolve(response));
  });

// Calls refused RESOURCE_EXHAUSTED (rate limited) so far, for tests: an honest client
// answering back to back must never be throttled by the default limit (docs/api.md).
const stats = { throttled: 0 };

async function withRetry(what, fn, attempts = 5) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fn();
    } catch (error) {
      if (error.code === grpc.status.RESOURCE_EXHAUSTED) stats.throttled += 1;
      const transient = [grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED,
        grpc.status.RESOURCE_EXHAUSTED].includes(error.code);
      if (!transient || attempt >= attempts) throw error;
      await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
    }
  }
}

// "kind[:difficulty]" as a BotSpec, e.g. "random:beginner" or "ismcts:expert".
function botSpec(text) {
  const [kind, difficulty = ''] = text.split(':');
  return { kind, difficulty };
}

async function main() {
  const api = loadApi();
  const lobbyAddress = env('WARROOM_LOBBY', 'localhost:50051');
  const lobby = new api.LobbyService(lobbyAddress, grpc.credentials.createInsecure());

  const login = await withRetry('Login', () =>
    unary(lobby, 'Login', { name: env('WARROOM_NAME', 'node-client') }));
  const auth = new grpc.Metadata();
  auth.set('authorization', `Bearer ${login.token}`);
  console.log(`logged in as ${login.display_name} (${login.player_id})`);

  const request = {
    game: env('WARROOM_GAME_KIND', 'GAME_KIND_NEW_COLD_WAR'),
    variant: env('WARROOM_VARIANT', ''),
    start_now: true,
    allow_spectators: true,
    fill_bot: botSpec(env('WARROOM_BOT', 'heuristic')),
  };
  if (process.env.WARROOM_RULES_ID) request.rules_id = process.env.WARROOM_RULES_ID;
  const created = await withRetry('CreateTable', () => unary(lobby, 'CreateTable', request, auth));
  const assignment = created.assignment;
  if (!assignment || !assignment.game_id) throw new Error('CreateTable returned no assignment');
  console.log(`game ${assignment.game_id}: seat ${assignment.seat} (${assignment.side})`);

  const gameAddress = env('WARROOM_GAME', assignment.game_endpoint || 'localhost:50052');
  const game = new api.GameService(gameAddress, grpc.credentials.createInsecure());
  const token = assignment.seat_token;

  const result = await play(game, assignment.game_id, token);
  console.log(`result: ${result.reason}`);
  for (const seat of result.seats) {
    console.log(`  seat ${seat.seat}: rank ${seat.rank + 1}, score ${seat.score}${seat.winner ? ' (winner)' : ''}`);
  }
  console.log(`RESULT ${JSON.stringify({ game_id: assignment.game_id, reason: result.reason, seats: result.seats })}`);
  lobby.close();
  game.close();
}

// Follow WatchGame (resuming after the last version on a dropped stream) and answer our
// decisions; resolves with the GameResult. `onUpdate(update)`, if given, sees every update.
function play(game, gameId, token, onUpdate) {
  const timeoutMs = Number(env('WARROOM_TIMEOUT_S', '600')) * 1000;
  let lastVersion = 0;
  let answeredAt = -1;
  let submitting = false;
  let actions = 0;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`game not over after ${timeoutMs} ms`)), timeoutMs);
    let done = false;
    const finish = (fn, value) => { done = true; clearTimeout(timer); fn(value); };

    const act = async (view) => {
      const decision = view.decision;
      if (submitting || !decision || !decision.options.length || view.version <= answeredAt) return;
      const options = decision.options.filter((o) => o.id !== 'undo');
      const choice = (options.length ? options : decision.options)[crypto.randomInt(options.length || decision.options.length)];
      submitting = true;
      try {
        const response = await withRetry('SubmitAction', () => unary(game, 'SubmitAction', {
          game_id: gameId, token, expected_version: view.version,
          decision_id: decision.decision_id, option_id: choice.id,
          idempotency_key: crypto.randomUUID(),
        }));
        answeredAt = view.version;
        actions += 1;
        submitting = false;
        if (response.view.result && response.view.result.seats.length) {
          finish(resolve, response.view.result);
          return;
        }
        await act(response.view);
      } catch (error) {
        submitting = false;
        if ([grpc.status.ABORTED, grpc.status.FAILED_PRECONDITION].includes(error.code)) {
          // Someone moved first: read the current view and try again.
          const current = await unary(game, 'GetView', { game_id: gameId, token });
          await act(current.view);
          return;
        }
        finish(reject, error);
      }
    };

    const open = () => {
      if (done) return;
      const stream = game.WatchGame({ game_id: gameId, token, from_version: lastVersion });
      stream.on('data', (update) => {
        if (done) return;
        lastVersion = Math.max(lastVersion, Number(update.version));
        const view = update.view;
        if (!view) return;
        if (onUpdate) {
          try {
            onUpdate(update);
          } catch (error) {
            stream.cancel();
            finish(reject, error);
            return;
          }
        }
        if (view.result && view.result.seats.length) {
          stream.cancel();
          console.log(`finished after ${actions} of our actions`);
          finish(resolve, view.result);
          return;
        }
        act(view).catch((error) => finish(reject, error));
      });
      stream.on('error', (error) => {
        if (done || error.code === grpc.status.CANCELLED) return;
        if (error.code === grpc.status.RESOURCE_EXHAUSTED) stats.throttled += 1;
        console.error(`stream dropped (${error.code}: ${error.details}); resuming from ${lastVersion}`);
        setTimeout(open, 500);
      });
      stream.on('end', () => setTimeout(open, 200));
    };
    open();
  });
}

module.exports = { PROTO_ROOT, botSpec, loadApi, play, stats, unary, withRetry };

if (require.main === module) {
  main().catch((error) => {
    console.error(`error: ${error.method ? `${error.method}: ` : ''}${error.details || error.message}`);
    process.exit(1);
  });
}
