// Conformance test for third-party clients, in a second language: using only proto/ and
// docs/api.md, against a running platform (WARROOM_LOBBY), it
//   - logs in as a guest;
//   - reads every game's catalogue (ListGameKinds, GetCatalog, the if_none_match contract)
//     and checks CatalogService's error reasons (google.rpc.ErrorInfo);
//   - plays a table of each title against random bots to the end, and at every update
//     checks the content version and resolves every id of the typed view through the
//     catalogue's view_fields;
//   - talks to health and reflection v1 with proto/third_party's protos, finds the endpoints;
//   - checks the refusals of issue 17 s4 by their ErrorInfo reasons (unknown bot kind, control
//     characters in a name, table full, already queued, undecodable bytes) and the
//     expected_version contract (stale view: ABORTED STALE_VERSION);
//   - lists "my games", finds a live game to watch, spectates it to the end, and verifies the
//     replay (one log entry per version, view hashes of what it watched, finished_at, a
//     resignation's entry, the 64-bit seed read exactly).
//
//   WARROOM_LOBBY=localhost:50051 node --test        (skipped without WARROOM_LOBBY)
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protobuf = require('protobufjs');
const { PROTO_ROOT, botSpec, loadApi, play, stats, unary, withRetry } = require('./client.js');
const { errorInfo } = require('./thirdparty.js');
const flows = require('./flows.js');

const LOBBY = process.env.WARROOM_LOBBY;
const BOT = process.env.WARROOM_BOT || 'random:beginner';
const skip = LOBBY ? false : 'WARROOM_LOBBY is not set (no platform to test against)';

function loadRoot(files, roots) {
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) => {
    for (const dir of roots) {
      const candidate = path.join(dir, target);
      if (fs.existsSync(candidate)) return candidate;
    }
    return target;
  };
  root.loadSync(files, { keepCase: true });
  return root;
}

// Every game's view message, for decoding SeatView.view (a google.protobuf.Any).
function gameSchemas() {
  const games = path.join(PROTO_ROOT, 'warroom', 'games');
  const files = [];
  for (const game of fs.readdirSync(games)) {
    const dir = path.join(games, game, 'v1');
    for (const name of fs.readdirSync(dir)) if (name.endsWith('.proto')) files.push(path.join(dir, name));
  }
  return loadRoot(files, [PROTO_ROOT]);
}

const TO_OBJECT = { longs: Number, enums: String, defaults: true, arrays: true, objects: true };

function decodeAny(schemas, any) {
  const typeName = any.type_url.slice(any.type_url.lastIndexOf('/') + 1);
  const type = schemas.lookupType(typeName);
  return type.toObject(type.decode(any.value), TO_OBJECT);
}

// The values at a ViewField path (catalog.proto): `a.b` descends, `a[]` takes each element;
// a repeated field gives its values, a map field its keys.
function* walk(data, fieldPath) {
  const dot = fieldPath.indexOf('.');
  const head = dot < 0 ? fieldPath : fieldPath.slice(0, dot);
  const rest = dot < 0 ? '' : fieldPath.slice(dot + 1);
  const many = head.endsWith('[]');
  const name = many ? head.slice(0, -2) : head;
  const node = data && typeof data === 'object' && !Array.isArray(data) ? data[name] : undefined;
  if (node === undefined || node === null) return;
  for (const item of many && Array.isArray(node) ? node : [node]) {
    if (rest) yield* walk(item, rest);
    else if (Array.isArray(item)) yield* item;
    else if (item && typeof item === 'object') yield* Object.keys(item);
    else yield item;
  }
}

// What each ViewField.refers_to may name in a catalogue (docs/api.md, CatalogService).
function tables(catalog) {
  const spaces = catalog.map.spaces;
  const pieces = new Set(catalog.piece_types.flatMap((p) => p.piece_ids));
  const t = {
    card: new Set(catalog.cards.map((c) => c.id)),
    objective: new Set(catalog.objectives.map((o) => o.id)),
    space: new Set(spaces.map((s) => s.id)),
    space_index: new Set(spaces.map((s) => s.index)),
    side: new Set(catalog.sides.map((s) => s.id)),
    piece: pieces,
    per_space: new Set([spaces.length]),
    per_piece: new Set([pieces.size]),
  };
  for (const kind of new Set(catalog.sides.map((s) => s.kind))) {
    const indexes = catalog.sides.filter((s) => s.kind === kind).map((s) => s.index);
    t[`side_index:${kind}`] = new Set(indexes);
    t[`per_side:${kind}`] = new Set([indexes.length]);
  }
  for (const kind of new Set(catalog.map.regions.map((r) => r.kind))) {
    const count = catalog.map.regions.filter((r) => r.kind === kind).length;
    t[`per_region:${kind}`] = new Set([count]);
    t[`region_mask:${kind}`] = { has: (v) => Number.isInteger(v) && v >= 0 && v < 2 ** count };
  }
  const units = catalog.piece_types.filter((p) => p.kind !== 'supply_token').map((p) => p.code);
  const tokens = catalog.piece_types.filter((p) => p.kind === 'supply_token').map((p) => p.code);
  t.piece_code = new Set(spaces.flatMap((s) => units.map((c) => s.index * 32 + c)));
  t.token_code = new Set(spaces.flatMap((s) => tokens.map((c) => s.index * 8 + c)));
  return t;
}

// Every id of a decoded view resolved through the catalogue: { resolved, missing }.
function resolveView(catalog, known, view) {
  const missing = [];
  let resolved = 0;
  for (const vf of catalog.view_fields) {
    const table = known[vf.refers_to];
    assert.ok(table, `unknown refers_to ${vf.refers_to}`);
    if (vf.refers_to.startsWith('per_')) {
      let node = view;
      for (const name of vf.field.split('.')) node = node && typeof node === 'object' ? node[name] : undefined;
      const length = Array.isArray(node) ? node.length : -1;
      if (table.has(length)) resolved += 1; else missing.push(`${vf.field}: length ${length}`);
      continue;
    }
    const textual = vf.refers_to === 'space' || vf.refers_to === 'side';
    for (const raw of walk(view, vf.field)) {
      const value = textual ? raw : Number(raw);
      const none = !textual && (value < 0 || (value === 0 && vf.refers_to === 'card' && !known.card.has(0)));
      if (none) continue;
      if (table.has(value)) resolved += 1; else missing.push(`${vf.field} = ${raw} (${vf.refers_to})`);
    }
  }
  return { resolved, missing };
}

test('a client built from proto/ and the docs alone', { skip, timeout: 900_000 }, async (t) => {
  const api = loadApi();
  const schemas = gameSchemas();
  const lobby = new api.LobbyService(LOBBY, grpc.credentials.createInsecure());
  const catalogs = new api.CatalogService(LOBBY, grpc.credentials.createInsecure());
  t.after(() => { lobby.close(); catalogs.close(); });

  const login = await withRetry('Login', () => unary(lobby, 'Login', { name: 'node-conformance' }));
  assert.ok(login.token && login.player_id, 'Login answers a token and a player id');
  const auth = new grpc.Metadata();
  auth.set('authorization', `Bearer ${login.token}`);

  const { games } = await unary(catalogs, 'ListGameKinds', {});
  assert.deepEqual(games.map((g) => g.rules_id).sort(), ['ncw', 'qmg_cw', 'qmg_sf']);

  await t.test('CatalogService refusals carry reasons and name the known values', async () => {
    const cases = [
      [{}, grpc.status.INVALID_ARGUMENT, 'GAME_REQUIRED'],
      [{ game: 99 }, grpc.status.INVALID_ARGUMENT, 'UNKNOWN_GAME_KIND'],
      [{ rules_id: 'chess' }, grpc.status.NOT_FOUND, 'UNKNOWN_GAME'],
    ];
    for (const [request, code, reason] of cases) {
      const error = await unary(catalogs, 'GetCatalog', request).then(() => null, (e) => e);
      assert.ok(error, `GetCatalog(${JSON.stringify(request)}) is refused`);
      assert.equal(error.code, code);
      assert.equal(errorInfo(error).reason, reason);
      assert.match(error.details, /qmg_sf|GAME_KIND_QMG_SOUTH_FRONT/);
    }
  });

  await t.test('health and reflection v1 from proto/third_party; endpoints from the lobby', async () => {
    await flows.toolkit(api, LOBBY, login);
  });

  await t.test('refusals carry the reasons of docs/api.md (issue 17 s4)', async () => {
    await flows.lobbyRefusals(api, LOBBY);
  });

  await t.test('my games, a live game watched to the end, the version contract, its replay', async () => {
    const watched = await flows.myGamesAndWatching(api, LOBBY, botSpec(BOT));
    assert.ok(watched > 1, `the spectator saw ${watched} versions`);
  });

  await t.test('a resignation: its log entry, finished_at, GAME_OVER after', async () => {
    await flows.resignation(api, LOBBY, botSpec(BOT));
  });

  await t.test('every title: catalogue, a bot table to the end, every view id resolved',
    { concurrency: true }, async (tt) => {
      await Promise.all(games.map((kind) => tt.test(kind.rules_id, async () => {
        const got = await unary(catalogs, 'GetCatalog', { game: kind.game });
        const catalog = got.catalog;
        assert.equal(got.content_version, kind.content_version);
        assert.equal(catalog.rules_id, kind.rules_id);
        assert.ok(catalog.cards.length > 0 && catalog.map.spaces.length > 0 && catalog.variants.length > 0);
        for (const space of catalog.map.spaces) {
          assert.ok(space.layout && space.layout.x > 0 && space.layout.y > 0, `${space.id} has a layout point`);
        }
        const again = await unary(catalogs, 'GetCatalog',
          { rules_id: kind.rules_id, if_none_match: got.content_version });
        assert.equal(again.not_modified, true);
        assert.equal(again.catalog, null);

        const created = await withRetry('CreateTable', () => unary(lobby, 'CreateTable', {
          game: kind.game, start_now: true, allow_spectators: true, fill_bot: botSpec(BOT),
        }, auth));
        const assignment = created.assignment;
        assert.ok(assignment && assignment.game_id, 'CreateTable with start_now answers an assignment');
        const game = new api.GameService(process.env.WARROOM_GAME || assignment.game_endpoint,
          grpc.credentials.createInsecure());
        const known = tables(catalog);
        let updates = 0;
        let resolved = 0;
        let cards = 0;
        try {
          const result = await play(game, assignment.game_id, assignment.seat_token, (update) => {
            const view = update.view;
            assert.equal(update.content_version, catalog.content_version);
            assert.equal(view.content_version, catalog.content_version);
            const typed = decodeAny(schemas, view.view);
            const outcome = resolveView(catalog, known, typed);
            assert.deepEqual(outcome.missing, [], `${kind.rules_id} v${view.version}`);
            resolved += outcome.resolved;
            for (const vf of catalog.view_fields) {
              if (vf.refers_to === 'card') cards += [...walk(typed, vf.field)].filter((v) => known.card.has(Number(v))).length;
            }
            updates += 1;
          });
          assert.ok(result.seats.length === assignment_seats(catalog, assignment), 'every seat is ranked');
        } finally {
          game.close();
        }
        assert.ok(updates > 1 && resolved > 0 && cards > 0,
          `${kind.rules_id}: ${updates} updates, ${resolved} ids resolved, ${cards} cards seen`);
      })));
    });

  await t.test('answering back to back, the default rate limit never throttled us', () => {
    assert.equal(stats.throttled, 0, `${stats.throttled} calls were RESOURCE_EXHAUSTED`);
  });
});

// The seat count of the variant an assignment plays (the default when unnamed).
function assignment_seats(catalog, assignment) {
  const variant = catalog.variants.find((v) => v.id === assignment.variant)
    || catalog.variants.find((v) => v.is_default);
  return variant.seat_count;
}
