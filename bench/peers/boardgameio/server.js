// boardgame.io server of the peer benchmark: the toy game (game.js) over socket.io + the Lobby
// REST API, on one port.
//
//   node server.js --port 8000 --storage memory|postgres|postgres-commit [--database URL] [--pool 8]
//
// memory           boardgame.io's in-memory store (no durability: the ceiling).
// postgres         bgio-postgres as shipped: the master broadcasts a move's new state to the
//                  match's sockets, then writes it (setState in a transaction, setMetadata as an
//                  upsert) -- the answer is ahead of the database.
// postgres-commit  the same store and transport, but the transport's documented `pubSub` option
//                  is a pub/sub that holds each broadcast until that move's writes have
//                  committed (Warroom's promise: an answer means the move is durable).
// --pool sizes Sequelize's connection pool (its default is 5; the benchmark gives boardgame.io
// the same pool as the Warroom authority's).
'use strict';

const { Server, SocketIO, Origins } = require('boardgame.io/server');
const { PostgresStore } = require('bgio-postgres');
const { ToyGame } = require('./game');

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

// A PostgresStore that remembers, per match, the writes still in flight.
class TrackedStore extends PostgresStore {
  constructor(...args) {
    super(...args);
    this.inflight = new Map();
  }

  track(matchID, promise) {
    let writes = this.inflight.get(matchID);
    if (writes === undefined) {
      writes = new Set();
      this.inflight.set(matchID, writes);
    }
    writes.add(promise);
    const forget = () => {
      writes.delete(promise);
      if (writes.size === 0 && this.inflight.get(matchID) === writes) this.inflight.delete(matchID);
    };
    promise.then(forget, forget);
    return promise;
  }

  setState(matchID, state, deltalog) {
    return this.track(matchID, super.setState(matchID, state, deltalog));
  }

  setMetadata(matchID, metadata) {
    return this.track(matchID, super.setMetadata(matchID, metadata));
  }

  // Settles once every write of the match started so far has committed (rejects if one failed).
  committed(matchID) {
    return Promise.all([...(this.inflight.get(matchID) || [])]);
  }
}

// boardgame.io's GenericPubSub (publish / subscribe / unsubscribeAll) delivering a payload only
// after the match's writes have committed. Master.onUpdate calls sendAll -> publish and then,
// synchronously in the same turn of the event loop, starts setState and setMetadata; so one
// microtask later those writes are tracked and the broadcast waits for them. A failed write
// withholds the broadcast: the client never sees a move the database does not hold.
class CommitThenPublish {
  constructor(store) {
    this.store = store;
    this.callbacks = new Map();
  }

  publish(channelId, payload) {
    const matchID = channelId.slice('MATCH-'.length);
    Promise.resolve()
      .then(() => this.store.committed(matchID))
      .then(
        () => {
          for (const callback of this.callbacks.get(channelId) || []) callback(payload);
        },
        (error) => console.error(`write failed, broadcast withheld: ${error}`),
      );
  }

  subscribe(channelId, callback) {
    if (!this.callbacks.has(channelId)) this.callbacks.set(channelId, []);
    this.callbacks.get(channelId).push(callback);
  }

  unsubscribeAll(channelId) {
    this.callbacks.delete(channelId);
  }
}

async function main() {
  const port = Number(option('port', '8000'));
  const storage = option('storage', 'memory');
  const url = option('database', process.env.BGIO_DATABASE_URL);
  const sequelize = { logging: false, pool: { max: Number(option('pool', '5')) } };
  const config = { games: [ToyGame], origins: [Origins.LOCALHOST] };
  if (storage === 'postgres') {
    config.db = new PostgresStore(url, sequelize);
  } else if (storage === 'postgres-commit') {
    const store = new TrackedStore(url, sequelize);
    config.db = store;
    config.transport = new SocketIO({ pubSub: new CommitThenPublish(store) });
  } else if (storage !== 'memory') {
    throw new Error(`unknown --storage ${storage}`);
  }
  const server = Server(config);
  const servers = await server.run(port);
  console.log(`READY ${port} ${storage}`);
  const stop = () => {
    server.kill(servers);
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
