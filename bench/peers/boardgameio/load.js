// Load generator of the peer benchmark: N toy games on a boardgame.io server (server.js).
//
//   node load.js --url http://127.0.0.1:8000 --tables 100 [--ack-database URL] [--seed 1]
//
// Each game is two players, each with its own socket.io connection (websocket), as two
// boardgame.io clients would be; a new match is made through the Lobby REST API (create, then
// join as each seat) and each socket syncs to it. One move of a game is in flight at a time: the
// seat that must act (on the latest state its socket received) sends a random legal move, and the
// move's latency is the time until that seat's socket receives the new state. The other seat learns
// of the move from the server's broadcast to its socket. A finished game is replaced by a new
// match inside the timed window (not counted in the latency).
//
// Prints READY once every table holds a match, then reads commands on stdin, one a line, and
// answers each with one JSON line (the same protocol as bench/peer_load_warroom.py):
//   closed GAMES SECONDS                closed loop on the first GAMES tables (every game moves
//                                       again as soon as it is answered)
//   paced GAMES SECONDS RATE ACK_EVERY  moves arrive as a Poisson process at RATE/s, each making
//                                       one idle game move; with --ack-database every
//                                       ACK_EVERY-th answer is followed at once by a read of the
//                                       match's row (`ahead`: the answer was newer than the row)
//   quit
'use strict';

const { io } = require('socket.io-client');
const { legalMoves } = require('./game');

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const URL_BASE = option('url', 'http://127.0.0.1:8000');
const GAME = 'toy';
const TIMEOUT_MS = 15000;

// A keep-alive connection the server closed as it was reused fails the fetch ("other side
// closed"; seen under load): the request is sent again on a new connection.
async function post(path, body, attempts = 3) {
  let reply;
  try {
    reply = await fetch(`${URL_BASE}/games/${GAME}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (error) {
    if (attempts <= 1) throw error;
    return post(path, body, attempts - 1);
  }
  if (!reply.ok) throw new Error(`${path}: HTTP ${reply.status} ${await reply.text()}`);
  return reply.json();
}

function connect() {
  return new Promise((resolve, reject) => {
    const socket = io(`${URL_BASE}/${GAME}`, { transports: ['websocket'], reconnection: false });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

function within(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timeout: ${what}`)), TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// One seat of a table: its socket and the latest (seat-filtered) state it received.
class Seat {
  constructor(table, playerID, socket) {
    this.table = table;
    this.playerID = playerID;
    this.socket = socket;
    this.state = null;
    this.credentials = null;
    this.answer = null;
    socket.on('sync', (matchID, info) => this.receive(matchID, info.state));
    socket.on('update', (matchID, state) => this.receive(matchID, state));
  }

  receive(matchID, state) {
    if (matchID !== this.table.matchID || !state) return;
    if (this.state !== null && state._stateID <= this.state._stateID) return;
    this.state = state;
    if (this.answer !== null && state._stateID > this.answer.sent) {
      const { resolve } = this.answer;
      this.answer = null;
      resolve(state);
    }
    this.table.notify(state._stateID);
  }

  moves() {
    const { state } = this;
    if (state === null || state._stateID !== this.table.head || state.ctx.gameover !== undefined) {
      return [];
    }
    const active = state.ctx.activePlayers;
    if (!active || !(this.playerID in active)) return [];
    return legalMoves(state.G, Number(this.playerID));
  }

  send(move, arg) {
    const sent = this.state._stateID;
    const answered = new Promise((resolve) => {
      this.answer = { sent, resolve };
    });
    const action = {
      type: 'MAKE_MOVE',
      payload: { type: move, args: [arg], playerID: this.playerID, credentials: this.credentials },
    };
    this.socket.emit('update', action, sent, this.table.matchID, this.playerID);
    return answered;
  }
}

// One game slot: two seats, the current match, and the newest state id either seat has seen.
class Table {
  constructor(index) {
    this.rng = mulberry32(Number(option('seed', '1')) * 100003 + index);
    this.matchID = null;
    this.head = -1;
    this.waiter = null;
    this.seats = [];
    this.created = 0;
  }

  async open() {
    this.seats = [new Seat(this, '0', await connect()), new Seat(this, '1', await connect())];
  }

  notify(stateID) {
    if (stateID > this.head) this.head = stateID;
    if (this.waiter !== null) {
      const wake = this.waiter;
      this.waiter = null;
      wake();
    }
  }

  async newMatch() {
    const { matchID } = await post('/create', { numPlayers: 2 });
    this.matchID = matchID;
    this.head = -1;
    for (const seat of this.seats) {
      seat.state = null;
      seat.answer = null;
      const joined = await post(`/${matchID}/join`, { playerID: seat.playerID, playerName: `p${seat.playerID}` });
      seat.credentials = joined.playerCredentials;
    }
    for (const seat of this.seats) {
      seat.socket.emit('sync', matchID, seat.playerID, seat.credentials, 2);
    }
    await within(this.until(() => this.seats.every((s) => s.state !== null)), 'sync');
    this.created += 1;
  }

  async until(ready) {
    while (!ready()) {
      await new Promise((resolve) => {
        this.waiter = resolve;
      });
    }
  }

  gameover() {
    return this.seats.some((s) => s.state !== null && s.state.ctx.gameover !== undefined);
  }

  // One move: {latency ms, matchID, stateID}, or null when the step made a new match instead.
  async step() {
    if (this.matchID === null || this.gameover()) {
      await this.newMatch();
      return null;
    }
    let seat = null;
    let options = [];
    await within(
      this.until(() => {
        seat = this.seats.find((s) => s.moves().length > 0) || null;
        options = seat ? seat.moves() : [];
        return seat !== null || this.gameover();
      }),
      'turn',
    );
    if (seat === null) return this.step();
    const [move, arg] = options[Math.floor(this.rng() * options.length)];
    const started = process.hrtime.bigint();
    const state = await within(seat.send(move, arg), 'answer');
    const latency = Number(process.hrtime.bigint() - started) / 1e6;
    return { latency, matchID: this.matchID, stateID: state._stateID };
  }
}

function percentile(values, q) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

class AckCheck {
  constructor(url) {
    this.every = 0;
    this.count = 0;
    this.checked = 0;
    this.ahead = 0;
    if (url) {
      const { Pool } = require('pg');
      this.pool = new Pool({ connectionString: url, max: 4 });
    }
  }

  async after(answer) {
    this.count += 1;
    if (!this.pool || !this.every || this.count % this.every !== 0) return;
    const { rows } = await this.pool.query(
      `SELECT (state->>'_stateID')::int AS id FROM "Games" WHERE id = $1`,
      [answer.matchID],
    );
    this.checked += 1;
    if (rows.length === 0 || rows[0].id < answer.stateID) this.ahead += 1;
  }

  async close() {
    if (this.pool) await this.pool.end();
  }
}

async function closedLoop(tables, seconds, ack, latencies) {
  const stop = Date.now() + seconds * 1000;
  await Promise.all(
    tables.map(async (table) => {
      while (Date.now() < stop) {
        const answer = await table.step();
        if (answer === null) continue;
        latencies.push(answer.latency);
        await ack.after(answer);
      }
    }),
  );
  return 0;
}

async function paced(tables, seconds, rate, ack, latencies) {
  const rng = mulberry32(7);
  const idle = [...tables];
  const waiting = [];
  const running = new Set();
  let queued = 0;
  const take = () => {
    if (idle.length > 0) return Promise.resolve(idle.pop());
    queued += 1;
    return new Promise((resolve) => waiting.push(resolve));
  };
  const give = (table) => (waiting.length > 0 ? waiting.shift()(table) : idle.push(table));
  const act = async () => {
    const table = await take();
    try {
      let answer = await table.step();
      while (answer === null) answer = await table.step();
      latencies.push(answer.latency);
      await ack.after(answer);
    } finally {
      give(table);
    }
  };
  const began = Date.now();
  let due = began;
  for (;;) {
    due += (-Math.log(1 - rng()) / rate) * 1000;
    if (due - began >= seconds * 1000) break;
    const delay = due - Date.now();
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    const task = act();
    running.add(task);
    task.finally(() => running.delete(task));
  }
  await Promise.all([...running]);
  return queued;
}

async function window(tables, ack, run) {
  const created = tables.reduce((n, t) => n + t.created, 0);
  const [checked, ahead] = [ack.checked, ack.ahead];
  const latencies = [];
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const queued = await run(latencies);
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  return {
    moves: latencies.length,
    elapsed,
    rate: latencies.length / elapsed,
    p50_ms: percentile(latencies, 0.5),
    p99_ms: percentile(latencies, 0.99),
    games_created: tables.reduce((n, t) => n + t.created, 0) - created,
    queued,
    ack_checked: ack.checked - checked,
    ack_ahead: ack.ahead - ahead,
    client_cpu_ms_per_move: (used.user + used.system) / 1000 / Math.max(1, latencies.length),
  };
}

async function main() {
  const count = Number(option('tables', '100'));
  const ack = new AckCheck(option('ack-database', null));
  const tables = [];
  for (let i = 0; i < count; i += 1) tables.push(new Table(i));
  for (let i = 0; i < count; i += 25) {
    await Promise.all(tables.slice(i, i + 25).map((t) => t.open()));
  }
  for (let i = 0; i < count; i += 25) {
    await Promise.all(tables.slice(i, i + 25).map((t) => t.newMatch()));
  }
  process.stdout.write('READY\n');
  const lines = require('readline').createInterface({ input: process.stdin });
  for await (const line of lines) {
    const [command, games, seconds, rate, every] = line.trim().split(/\s+/);
    if (command !== 'closed' && command !== 'paced') break;
    const crowd = tables.slice(0, Number(games));
    ack.every = command === 'paced' ? Number(every) : 0;
    const result = await window(crowd, ack, (latencies) =>
      command === 'paced'
        ? paced(crowd, Number(seconds), Number(rate), ack, latencies)
        : closedLoop(crowd, Number(seconds), ack, latencies),
    );
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
  await ack.close();
  for (const table of tables) for (const seat of table.seats) seat.socket.close();
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
