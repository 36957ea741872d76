// Conformance flows beyond playing (conformance.test.js): the third-party protos, endpoints,
// refusals by reason, "my games", spectating, the expected_version contract and verifiable
// replays. Each flow asserts what docs/api.md promises; only proto/ and the docs are used.
'use strict';

const assert = require('node:assert/strict');
const crypto = require('crypto');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { PROTO_ROOT, play, unary, withRetry } = require('./client.js');
const { errorInfo, healthCheck, rawUnary, reflect } = require('./thirdparty.js');

const GAME = 'qmg_sf'; // the quickest title to play out against random bots
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function bearer(token) {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

async function guest(lobby, name) {
  const login = await withRetry('Login', () => unary(lobby, 'Login', { name }));
  return { ...login, auth: bearer(login.token) };
}

// The call's refusal: its gRPC code and ErrorInfo (fails when the call succeeds).
async function refusal(promise, what) {
  const error = await promise.then(() => null, (e) => e);
  assert.ok(error, `${what} is refused`);
  return { code: error.code, message: error.details, ...errorInfo(error) };
}

// Health and reflection v1 from proto/third_party, and the endpoints from the lobby.
async function toolkit(api, lobbyAddress, login) {
  assert.equal(await healthCheck(lobbyAddress, 'warroom.v1.LobbyService'), 'SERVING');
  assert.equal(await healthCheck(lobbyAddress, 'warroom.v1.CatalogService'), 'SERVING');
  const [listed, described] = await reflect(lobbyAddress, [
    { list_services: '' }, { file_containing_symbol: 'warroom.v1.LobbyService' }]);
  const names = listed.list_services_response.service.map((s) => s.name);
  for (const name of ['warroom.v1.LobbyService', 'warroom.v1.CatalogService',
    'grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection']) {
    assert.ok(names.includes(name), `reflection v1 lists ${name}: ${names}`);
  }
  assert.ok(described.file_descriptor_response.file_descriptor_proto.length > 0);

  const lobby = new api.LobbyService(lobbyAddress, grpc.credentials.createInsecure());
  try {
    const { endpoints } = await unary(lobby, 'GetEndpoints', {}); // no token needed
    assert.ok(endpoints.game_endpoint && endpoints.bots_endpoint, 'GetEndpoints names the services');
    assert.deepEqual(login.endpoints, endpoints, 'Login carries the same endpoints');
    assert.equal(await healthCheck(endpoints.game_endpoint, 'warroom.v1.GameService'), 'SERVING');
    assert.equal(await healthCheck(endpoints.bots_endpoint, 'warroom.v1.BotService'), 'SERVING');
    return endpoints;
  } finally {
    lobby.close();
  }
}

// The lobby refusals of issue 17 s4, each by its reason (docs/api.md's table).
async function lobbyRefusals(api, lobbyAddress) {
  const lobby = new api.LobbyService(lobbyAddress, grpc.credentials.createInsecure());
  try {
    const host = await guest(lobby, 'node-host');
    let r = await refusal(unary(lobby, 'CreateTable', {
      rules_id: GAME, start_now: true, fill_bot: { kind: 'oracle', difficulty: '' } }, host.auth),
    'fill_bot kind oracle');
    assert.deepEqual([r.code, r.reason], [grpc.status.INVALID_ARGUMENT, 'UNKNOWN_BOT_KIND']);
    assert.match(r.message, /random/, 'the message lists the known bot kinds');
    assert.ok(r.types.includes('google.rpc.BadRequest'), 'with the field in a BadRequest');

    for (const name of ['bell\u0007', 'nul\u0000x', 'ansi\u001b[31mred']) {
      r = await refusal(unary(lobby, 'Login', { name }), `display name ${JSON.stringify(name)}`);
      assert.deepEqual([r.code, r.reason], [grpc.status.INVALID_ARGUMENT, 'BAD_TEXT'], name);
    }
    r = await refusal(unary(lobby, 'Login', { name: 'x'.repeat(33) }), 'a 33-character name');
    assert.deepEqual([r.code, r.reason], [grpc.status.INVALID_ARGUMENT, 'TOO_LONG']);

    // Table full: a two-seat table, the host and a second player; a third is refused.
    const { table } = await unary(lobby, 'CreateTable', { rules_id: GAME }, host.auth);
    const second = await guest(lobby, 'node-second');
    const third = await guest(lobby, 'node-third');
    await unary(lobby, 'JoinTable', { table_id: table.table_id }, second.auth);
    r = await refusal(unary(lobby, 'JoinTable', { table_id: table.table_id }, third.auth), 'joining a full table');
    assert.deepEqual([r.code, r.reason], [grpc.status.FAILED_PRECONDITION, 'TABLE_FULL']);
    assert.ok(r.types.includes('google.rpc.PreconditionFailure'));
    await unary(lobby, 'LeaveTable', { table_id: table.table_id }, second.auth);
    await unary(lobby, 'LeaveTable', { table_id: table.table_id }, host.auth);

    // Already queued: the ticket is named in the ErrorInfo and listed by ListMyTickets.
    const ticket = { rules_id: GAME, allow_bots: false, ttl_s: 120 };
    const { ticket: queued } = await unary(lobby, 'EnqueueTicket', ticket, third.auth);
    try {
      r = await refusal(unary(lobby, 'EnqueueTicket', ticket, third.auth), 'a second ticket');
      assert.deepEqual([r.code, r.reason], [grpc.status.FAILED_PRECONDITION, 'ALREADY_QUEUED']);
      assert.equal(r.metadata.ticket_id, queued.ticket_id);
      const mine = await unary(lobby, 'ListMyTickets', {}, third.auth);
      assert.deepEqual(mine.tickets.map((t) => t.ticket_id), [queued.ticket_id]);
    } finally {
      await unary(lobby, 'CancelTicket', { ticket_id: queued.ticket_id }, third.auth);
    }

    // Undecodable bytes (a length running past the end): INVALID_ARGUMENT MALFORMED_REQUEST.
    r = await refusal(rawUnary(lobby, '/warroom.v1.LobbyService/Login', Buffer.from([0x0a, 0xff])), 'garbage bytes');
    assert.deepEqual([r.code, r.reason], [grpc.status.INVALID_ARGUMENT, 'MALFORMED_REQUEST']);
    assert.ok(r.message.length < 200, `a short message: ${r.message}`);
  } finally {
    lobby.close();
  }
}

// Poll GetView until `token`'s seat owes a decision (bots answer in the background).
async function ownDecision(game, gameId, token) {
  for (let i = 0; i < 150; i += 1) {
    const { view } = await unary(game, 'GetView', { game_id: gameId, token });
    const options = view.decision ? view.decision.options.filter((o) => o.kind !== 'OPTION_KIND_UNDO') : [];
    if (options.length) return { view, option: options[0] };
    if (view.result && view.result.seats.length) throw new Error('the game ended before our turn');
    await sleep(200);
  }
  throw new Error('our seat never got a decision');
}

const answer = (view, option, expected) => ({
  game_id: view.game_id, expected_version: expected,
  decision_id: view.decision.decision_id, option_id: option.id, idempotency_key: crypto.randomUUID(),
});

// The expected_version contract on a live game (docs/api.md, "Versions").
async function versionContract(game, gameId, token) {
  const first = await ownDecision(game, gameId, token);
  const submit = (body) => unary(game, 'SubmitAction', { ...body, token });
  let r = await refusal(submit(answer(first.view, first.option, first.view.version + 5)), 'a version past the head');
  assert.deepEqual([r.code, r.reason], [grpc.status.INVALID_ARGUMENT, 'BAD_EXPECTED_VERSION']);
  r = await refusal(submit(answer(first.view, first.option, -1)), 'version -1');
  assert.equal(r.reason, 'BAD_EXPECTED_VERSION');
  await submit(answer(first.view, first.option, first.view.version));
  const next = await ownDecision(game, gameId, token); // a new turn, opened after our answer
  r = await refusal(submit(answer(next.view, next.option, first.view.version)), 'an answer on a stale view');
  assert.deepEqual([r.code, r.reason], [grpc.status.ABORTED, 'STALE_VERSION']);
  assert.ok(Number(r.metadata.current_version) >= next.view.version, 'current_version names the head');
  await submit(answer(next.view, next.option, next.view.version)); // the open decision: accepted
}

// Follow a game as a spectator: { hashes: Map(version -> sha256 hex of view.value), done }.
function spectate(game, gameId, token) {
  const hashes = new Map();
  let leaked = 0;
  const done = new Promise((resolve, reject) => {
    const stream = game.WatchGame({ game_id: gameId, token, from_version: 0 });
    stream.on('data', (update) => {
      const view = update.view;
      if (!view) return;
      assert.equal(view.seat, -1);
      if (view.decision && view.decision.options.length) leaked += 1;
      hashes.set(Number(view.version), crypto.createHash('sha256').update(view.view.value).digest('hex'));
    });
    stream.on('error', (error) => (error.code === grpc.status.CANCELLED ? resolve() : reject(error)));
    stream.on('end', resolve);
  });
  return { hashes, done, leaks: () => leaked };
}

// A replay read with longs: String, so the 64-bit seed arrives exactly.
function exactGameClient(address) {
  const definition = protoLoader.loadSync(['warroom/v1/game.proto'], {
    includeDirs: [PROTO_ROOT], keepCase: true, longs: String, enums: String, defaults: true, oneofs: true });
  const { GameService } = grpc.loadPackageDefinition(definition).warroom.v1;
  return new GameService(address, grpc.credentials.createInsecure());
}

function checkReplay(replay, finalVersion) {
  assert.match(replay.seed, /^\d+$/, 'the uint64 seed as an exact decimal string');
  assert.ok(BigInt(replay.seed) < 2n ** 64n);
  assert.equal(replay.actions.length, finalVersion, 'one log entry per version');
  replay.actions.forEach((a, i) => assert.equal(Number(a.version), i + 1));
  assert.equal(replay.view_hashes.length, finalVersion + 1, 'a view hash for every version 0..final');
  assert.equal(replay.final_state_hash.length, 32);
  assert.ok(replay.result.finished_at && Number(replay.result.finished_at.seconds) > 0, 'finished_at is set');
}

// My games, the live list, spectator access, the version contract, and the replay of what
// the spectator saw, on one qmg_sf table against random bots.
async function myGamesAndWatching(api, lobbyAddress, bot) {
  const lobby = new api.LobbyService(lobbyAddress, grpc.credentials.createInsecure());
  const player = await guest(lobby, 'node-watched');
  const created = await withRetry('CreateTable', () => unary(lobby, 'CreateTable', {
    rules_id: GAME, start_now: true, allow_spectators: true, fill_bot: bot }, player.auth));
  const { game_id: gameId, seat_token: token, seat } = created.assignment;
  const game = new api.GameService(created.assignment.game_endpoint, grpc.credentials.createInsecure());
  const exact = exactGameClient(created.assignment.game_endpoint);
  try {
    const mine = await unary(lobby, 'ListMyGames', {}, player.auth);
    const listed = mine.games.find((g) => g.game_id === gameId);
    assert.ok(listed, 'ListMyGames lists the new game');
    assert.equal(listed.status, 'STATUS_STARTED');
    assert.equal(listed.seat, seat);
    assert.ok(listed.live_info, 'whose turn is known');
    assert.equal(listed.my_turn, listed.to_act.includes(seat));

    const watcher = await guest(lobby, 'node-watcher');
    const live = await unary(lobby, 'ListLiveGames', { rules_id: GAME, page: { page_size: 100 } }, watcher.auth);
    const entry = live.games.find((g) => g.game_id === gameId);
    assert.ok(entry && entry.spectator_token, 'ListLiveGames lists it with spectator access');
    const access = await unary(lobby, 'GetSpectatorAccess', { game_id: gameId }, watcher.auth);
    assert.equal(access.game.game_id, gameId);
    const spectator = spectate(game, gameId, access.game.spectator_token);

    await versionContract(game, gameId, token);
    const result = await play(game, gameId, token);
    await spectator.done;
    assert.equal(spectator.leaks(), 0, 'a spectator never gets options');

    const finished = await unary(lobby, 'ListMyGames', { include_finished: true }, player.auth);
    const over = finished.games.find((g) => g.game_id === gameId);
    assert.ok(over && over.status === 'STATUS_FINISHED' && over.result, 'the finished game is listed with its result');

    const replay = await unary(exact, 'GetReplay', { game_id: gameId, token });
    const final = replay.view_hashes.length - 1;
    checkReplay(replay, final);
    assert.equal(replay.result.reason, result.reason);
    assert.ok(spectator.hashes.has(final), 'the spectator saw the final version');
    for (const [version, hex] of spectator.hashes) {
      assert.equal(replay.view_hashes[version].toString('hex'), hex, `view hash of version ${version}`);
    }
    return spectator.hashes.size;
  } finally {
    game.close();
    exact.close();
    lobby.close();
  }
}

// A resignation ends the game with its own log entry; the game service reasons hold too.
async function resignation(api, lobbyAddress, bot) {
  const lobby = new api.LobbyService(lobbyAddress, grpc.credentials.createInsecure());
  const player = await guest(lobby, 'node-resigns');
  const { assignment } = await withRetry('CreateTable', () => unary(lobby, 'CreateTable', {
    rules_id: GAME, start_now: true, fill_bot: bot }, player.auth));
  const exact = exactGameClient(assignment.game_endpoint);
  try {
    let r = await refusal(rawUnary(exact, '/warroom.v1.GameService/GetView', Buffer.from([0x0a, 0xff])), 'garbage bytes');
    assert.deepEqual([r.code, r.reason], [grpc.status.INVALID_ARGUMENT, 'MALFORMED_REQUEST']);
    const early = await refusal(unary(exact, 'GetReplay', { game_id: assignment.game_id, token: assignment.seat_token }),
      'a replay before the end');
    assert.deepEqual([early.code, early.reason], [grpc.status.FAILED_PRECONDITION, 'GAME_NOT_OVER']);
    const resigned = await unary(exact, 'Resign', { game_id: assignment.game_id, token: assignment.seat_token });
    assert.equal(resigned.result.reason, 'resignation');
    assert.ok(resigned.result.finished_at, 'the Resign answer carries finished_at');
    const replay = await unary(exact, 'GetReplay', { game_id: assignment.game_id, token: assignment.seat_token });
    checkReplay(replay, Number(resigned.version));
    const last = replay.actions[replay.actions.length - 1];
    assert.deepEqual([last.kind, last.seat, last.option_id], ['resign', assignment.seat, '']);
    r = await refusal(unary(exact, 'Resign', { game_id: assignment.game_id, token: assignment.seat_token }), 'resigning twice');
    assert.deepEqual([r.code, r.reason], [grpc.status.FAILED_PRECONDITION, 'GAME_OVER']);
  } finally {
    exact.close();
    lobby.close();
  }
}

module.exports = { lobbyRefusals, myGamesAndWatching, resignation, toolkit };
