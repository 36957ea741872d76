"""Live matchmaking state in Redis: tickets, pools, claims, matcher locks, status channels.

Keys under a prefix P:
  P t:<ticket>               hash  status, game, queue, owner, players, data, created_at,
                                   expires_at, match, game_id, variant, assign
  P pool:<game>:<queue>      zset  searching tickets by creation time
  P pooldata:<game>:<queue>  hash  ticket -> match data (the match function's input)
  P poollog:<game>:<queue>   stream the pool's changes, read by directors' copies
                                   (services.lobby.poolcache)
  P player:<player>          str   the player's active ticket
  P exp                      zset  tickets by expiry
  P claims / P claim:<match> zset of claim deadlines / the claimed tickets of one match
  P lock:<pool>, P fence:<pool>    matcher lock and its fencing counter
  P ch:<ticket>              pub/sub channel of status changes

Every transition is one Lua script, so a ticket is claimed by at most one match, a
cancelled ticket is never assigned, and a lapsed claim returns its tickets to the pool.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis

from services.lobby.poolcache import LOG_MAX, PoolCache
from warroom.matchmaking import Ticket

SEARCHING = "searching"
CLAIMED = "claimed"
MATCHED = "matched"
CANCELLED = "cancelled"
EXPIRED = "expired"
ACTIVE = (SEARCHING, CLAIMED)
TERMINAL = (MATCHED, CANCELLED, EXPIRED)
# Most tickets one enqueue script call adds.
ADD_BATCH = 200

_LUA_HELPERS = f"""
local P = ARGV[1]
local BATCH = 1000
local LOG_MAX = {LOG_MAX}
local function tkey(tid) return P .. 't:' .. tid end
local function poolkey(g, q) return P .. 'pool:' .. g .. ':' .. q end
local function datakey(g, q) return P .. 'pooldata:' .. g .. ':' .. q end
local function logkey(g, q) return P .. 'poollog:' .. g .. ':' .. q end
local function log_add(g, q, tid, data)
  redis.call('XADD', logkey(g, q), 'MAXLEN', '~', LOG_MAX, '*', 'a', tid, 'd', data)
end
local function log_gone(g, q, tids)
  redis.call('XADD', logkey(g, q), 'MAXLEN', '~', LOG_MAX, '*', 'r', tids)
end
local function unlink_players(t, tid)
  local players = cjson.decode(redis.call('HGET', t, 'players'))
  for _, p in ipairs(players) do
    local k = P .. 'player:' .. p
    if redis.call('GET', k) == tid then redis.call('DEL', k) end
  end
end
local function finish(tid, status, keep, now)
  local t = tkey(tid)
  local g = redis.call('HGET', t, 'game')
  local q = redis.call('HGET', t, 'queue')
  redis.call('HSET', t, 'status', status, 'ended_at', now)
  redis.call('ZREM', poolkey(g, q), tid)
  if redis.call('HDEL', datakey(g, q), tid) == 1 then log_gone(g, q, tid) end
  redis.call('ZREM', P .. 'exp', tid)
  unlink_players(t, tid)
  redis.call('EXPIRE', t, keep)
  redis.call('PUBLISH', P .. 'ch:' .. tid, status)
end
"""

# ARGV: P, then a JSON list of tickets to add, each [ticket id, created_at, expires_at,
# [players], game, queue, player key ttl, default mean, data head, known]. `known` is null
# to read each player's name and mean in the game from the profile cache (P prof:<player>),
# else [[means as JSON numbers], [names]]. The match data is the head followed by the
# means and names. Per ticket: {'ok'}, {'miss'} (a profile or mean not cached), {'bot',
# player} or {'busy', player, their active ticket}; only 'ok' changes anything.
_ENQUEUE_MANY = (
    _LUA_HELPERS
    + """
local results = {}
for _, e in ipairs(cjson.decode(ARGV[2])) do
  local tid, created, expires, players = e[1], e[2], e[3], e[4]
  local g, q, ttl, default, head, known = e[5], e[6], e[7], e[8], e[9], e[10]
  local means, names = {}, {}
  local verdict = nil
  if known == cjson.null then
    for i, p in ipairs(players) do
      local f = redis.call('HMGET', P .. 'prof:' .. p, 'name', 'bot', 'mu:' .. g)
      if not f[1] or not f[3] then verdict = {'miss'} break end
      if f[2] == '1' then verdict = {'bot', p} break end
      names[i] = f[1]
      if f[3] == 'none' then means[i] = default else means[i] = f[3] end
    end
  else
    means, names = known[1], known[2]
  end
  if not verdict then
    for _, p in ipairs(players) do
      local other = redis.call('GET', P .. 'player:' .. p)
      if other then
        local st = redis.call('HGET', tkey(other), 'status')
        if st == 'searching' or st == 'claimed' then verdict = {'busy', p, other} break end
      end
    end
  end
  if not verdict then
    local data = head .. '"r":[' .. table.concat(means, ',') .. '],"n":' .. cjson.encode(names)
      .. '}'
    redis.call('HSET', tkey(tid), 'status', 'searching', 'game', g, 'queue', q,
      'owner', players[1], 'players', cjson.encode(players), 'data', data,
      'created_at', created, 'expires_at', expires)
    redis.call('ZADD', poolkey(g, q), created, tid)
    redis.call('HSET', datakey(g, q), tid, data)
    log_add(g, q, tid, data)
    redis.call('ZADD', P .. 'exp', expires, tid)
    for _, p in ipairs(players) do redis.call('SET', P .. 'player:' .. p, tid, 'EX', ttl) end
    verdict = {'ok'}
  end
  results[#results + 1] = verdict
end
return results
"""
)

# ARGV: P, tid, player, now, keep
_CANCEL = (
    _LUA_HELPERS
    + """
local tid = ARGV[2]
local t = tkey(tid)
local st = redis.call('HGET', t, 'status')
if not st then return 'missing' end
local member = false
for _, p in ipairs(cjson.decode(redis.call('HGET', t, 'players'))) do
  if p == ARGV[3] then member = true end
end
if not member then return 'missing' end
if st == 'searching' or st == 'claimed' then
  finish(tid, 'cancelled', ARGV[5], ARGV[4])
  return 'cancelled'
end
return st
"""
)

# KEYS: fence key. ARGV: P, fence token, claim deadline, game, queue, then a JSON list of
# [match id, [ticket ids]] (one argument: packing thousands of arguments is slow). The
# claimed tickets leave the pool in batched ZREM/HDEL calls.
_CLAIM = (
    _LUA_HELPERS
    + """
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return {-1} end
local g, q = ARGV[4], ARGV[5]
local results = {}
local gone = {}
local deadlines = {}
for _, match in ipairs(cjson.decode(ARGV[6])) do
  local mid, tids = match[1], match[2]
  local ok = 1
  for _, tid in ipairs(tids) do
    if redis.call('HGET', tkey(tid), 'status') ~= 'searching' then ok = 0 break end
  end
  if ok == 1 then
    for _, tid in ipairs(tids) do
      redis.call('HSET', tkey(tid), 'status', 'claimed', 'match', mid)
      gone[#gone + 1] = tid
    end
    deadlines[#deadlines + 1] = ARGV[3]
    deadlines[#deadlines + 1] = mid
    redis.call('HSET', P .. 'claim:' .. mid, 'tickets', cjson.encode(tids), 'game', g, 'queue', q)
  end
  results[#results + 1] = ok
end
for i = 1, #gone, BATCH do
  local last = math.min(i + BATCH - 1, #gone)
  redis.call('ZREM', poolkey(g, q), unpack(gone, i, last))
  redis.call('HDEL', datakey(g, q), unpack(gone, i, last))
  log_gone(g, q, table.concat(gone, ' ', i, last))
end
for i = 1, #deadlines, 2 * BATCH do
  redis.call('ZADD', P .. 'claims', unpack(deadlines, i, math.min(i + 2 * BATCH - 1, #deadlines)))
end
return results
"""
)

# ARGV: P, match id, keep, game id, variant, now, then per ticket: tid, assignment json
_FINALIZE = (
    _LUA_HELPERS
    + """
local mid = ARGV[2]
for k = 7, #ARGV, 2 do
  local st = redis.call('HGET', tkey(ARGV[k]), 'status')
  local m = redis.call('HGET', tkey(ARGV[k]), 'match')
  if st ~= 'claimed' or m ~= mid then return {'aborted', ARGV[k], st or 'missing'} end
end
for k = 7, #ARGV, 2 do
  local t = tkey(ARGV[k])
  redis.call('HSET', t, 'game_id', ARGV[4], 'variant', ARGV[5], 'assign', ARGV[k + 1])
  finish(ARGV[k], 'matched', ARGV[3], ARGV[6])
end
redis.call('ZREM', P .. 'claims', mid)
redis.call('DEL', P .. 'claim:' .. mid)
return {'ok'}
"""
)

# ARGV: P, keep, now, and a JSON list of [match id, game id, variant, [[ticket id,
# assignment json], ...]]. Claimed tickets are already out of their pool, so only their
# own keys change; the expiry index and the claims are trimmed in batched calls. A matched
# ticket's players keep their active-ticket keys until those lapse: every reader of them
# (enqueue, active_ticket) checks the ticket's status, and the next enqueue replaces them.
_FINALIZE_MANY = (
    _LUA_HELPERS
    + """
local results = {}
local keep, now = ARGV[2], ARGV[3]
local done, claims = {}, {}
for _, match in ipairs(cjson.decode(ARGV[4])) do
  local mid, gid, variant, tickets = match[1], match[2], match[3], match[4]
  local verdict = {'ok'}
  for _, t in ipairs(tickets) do
    local fields = redis.call('HMGET', tkey(t[1]), 'status', 'match')
    if fields[1] ~= 'claimed' or fields[2] ~= mid then
      verdict = {'aborted', t[1], fields[1] or 'missing'}
      break
    end
  end
  if verdict[1] == 'ok' then
    for _, t in ipairs(tickets) do
      local tid = t[1]
      local key = tkey(tid)
      redis.call('HSET', key, 'status', 'matched', 'ended_at', now, 'game_id', gid,
        'variant', variant, 'assign', t[2])
      redis.call('EXPIRE', key, keep)
      redis.call('PUBLISH', P .. 'ch:' .. tid, 'matched')
      done[#done + 1] = tid
    end
    claims[#claims + 1] = mid
  end
  results[#results + 1] = verdict
end
for i = 1, #done, BATCH do
  redis.call('ZREM', P .. 'exp', unpack(done, i, math.min(i + BATCH - 1, #done)))
end
for i = 1, #claims, BATCH do
  local last = math.min(i + BATCH - 1, #claims)
  redis.call('ZREM', P .. 'claims', unpack(claims, i, last))
  local keys = {}
  for k = i, last do keys[#keys + 1] = P .. 'claim:' .. claims[k] end
  redis.call('DEL', unpack(keys))
end
return results
"""
)

# ARGV: P, match id, now, keep
_RELEASE = (
    _LUA_HELPERS
    + """
local mid = ARGV[2]
local c = P .. 'claim:' .. mid
local raw = redis.call('HGET', c, 'tickets')
redis.call('ZREM', P .. 'claims', mid)
if not raw then return 0 end
local g = redis.call('HGET', c, 'game')
local q = redis.call('HGET', c, 'queue')
local n = 0
for _, tid in ipairs(cjson.decode(raw)) do
  local t = tkey(tid)
  if redis.call('HGET', t, 'status') == 'claimed' and redis.call('HGET', t, 'match') == mid then
    if tonumber(redis.call('HGET', t, 'expires_at')) <= tonumber(ARGV[3]) then
      finish(tid, 'expired', ARGV[4], ARGV[3])
    else
      redis.call('HSET', t, 'status', 'searching')
      redis.call('HDEL', t, 'match')
      redis.call('ZADD', poolkey(g, q), redis.call('HGET', t, 'created_at'), tid)
      local data = redis.call('HGET', t, 'data')
      redis.call('HSET', datakey(g, q), tid, data)
      log_add(g, q, tid, data)
      n = n + 1
    end
  end
end
redis.call('DEL', c)
return n
"""
)

# ARGV: P, now, limit, keep
_EXPIRE = (
    _LUA_HELPERS
    + """
local due = redis.call('ZRANGEBYSCORE', P .. 'exp', '-inf', ARGV[2], 'LIMIT', 0, ARGV[3])
local n = 0
for _, tid in ipairs(due) do
  local st = redis.call('HGET', tkey(tid), 'status')
  if st == 'searching' then
    finish(tid, 'expired', ARGV[4], ARGV[2])
    n = n + 1
  elseif st ~= 'claimed' then
    redis.call('ZREM', P .. 'exp', tid)
  end
end
return n
"""
)

# KEYS: lock key. ARGV: owner
_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class AlreadyQueuedError(Exception):
    """A player of the ticket already has an active ticket."""

    def __init__(self, player_id: str, ticket_id: str) -> None:
        super().__init__(f"player {player_id} already has an active ticket {ticket_id}")
        self.player_id = player_id
        self.ticket_id = ticket_id


@dataclass(frozen=True, slots=True)
class Lock:
    """A held matcher lock and the fencing token that goes with it."""

    pool: str
    owner: str
    token: int


def ticket_data_head(ticket: Ticket) -> str:
    """The match function's view of a ticket as stored in the pool (JSON), up to the
    ratings and names, which the enqueue script appends."""
    return (
        json.dumps(
            {
                "p": list(ticket.player_ids),
                "c": ticket.created_at,
                "v": list(ticket.variants),
                "s": list(ticket.side_preferences),
                "b": ticket.allow_bots,
                "f": ticket.bot_fill_after_s,
                "k": ticket.fill_bot.kind,
                "d": ticket.fill_bot.difficulty,
            },
            separators=(",", ":"),
        )[:-1]
        + ","
    )


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class TicketQueue:
    """Tickets, pools and claims in one Redis under one key prefix."""

    def __init__(
        self,
        client: aioredis.Redis,
        prefix: str,
        keep_s: int = 3600,
        watch_client: aioredis.Redis | None = None,
    ) -> None:
        self.redis = client
        # the client whose connections status subscriptions hold
        self.watch_redis = watch_client or client
        self.prefix = prefix
        self.keep_s = keep_s
        self._enqueue_many = client.register_script(_ENQUEUE_MANY)
        self._adding: list[tuple[list[Any], asyncio.Future[list[str]]]] = []
        self._adder: asyncio.Task[None] | None = None
        # the pools as this process last read them, synced from their change logs
        self.pools = PoolCache(client, prefix)
        self._cancel = client.register_script(_CANCEL)
        self._claim = client.register_script(_CLAIM)
        self._finalize = client.register_script(_FINALIZE)
        self._finalize_many = client.register_script(_FINALIZE_MANY)
        self._release = client.register_script(_RELEASE)
        self._expire = client.register_script(_EXPIRE)
        self._unlock = client.register_script(_UNLOCK)

    def ticket_key(self, ticket_id: str) -> str:
        return f"{self.prefix}t:{ticket_id}"

    def pool_key(self, game: str, queue: str) -> str:
        return f"{self.prefix}pool:{game}:{queue}"

    def channel(self, ticket_id: str) -> str:
        return f"{self.prefix}ch:{ticket_id}"

    async def enqueue(
        self, ticket: Ticket, game: str, queue: str, expires_at: float, player_ttl_s: int
    ) -> None:
        """Add a searching ticket with its own ratings and names; raises AlreadyQueuedError
        when a player has an active one."""
        known = [[repr(float(r)) for r in ticket.ratings], list(ticket.names)]
        await self._add(ticket, game, queue, expires_at, player_ttl_s, 0.0, known)

    async def enqueue_cached(
        self,
        ticket: Ticket,
        game: str,
        queue: str,
        expires_at: float,
        player_ttl_s: int,
        default_mean: float,
    ) -> list[str]:
        """Add a searching ticket whose players' names and means in `game` come from the
        profile cache (`default_mean` for players unrated there); returns the verdict:
        ["ok"], ["miss"] (nothing added: a profile is not cached), ["bot", player].
        Raises AlreadyQueuedError when a player has an active ticket."""
        return await self._add(ticket, game, queue, expires_at, player_ttl_s, default_mean, None)

    async def _add(
        self,
        ticket: Ticket,
        game: str,
        queue: str,
        expires_at: float,
        player_ttl_s: int,
        default_mean: float,
        known: list[list[str]] | None,
    ) -> list[str]:
        """Queue one ticket for the next batched enqueue call and wait for its verdict
        (AlreadyQueuedError when a player has an active ticket).

        Tickets that arrive while a call is in flight go together in the next one, so a
        burst of EnqueueTicket calls costs a few Redis round trips instead of one each.
        """
        entry = [
            ticket.ticket_id,
            repr(ticket.created_at),
            repr(expires_at),
            list(ticket.player_ids),
            game,
            queue,
            player_ttl_s,
            repr(float(default_mean)),
            ticket_data_head(ticket),
            known,
        ]
        future: asyncio.Future[list[str]] = asyncio.get_running_loop().create_future()
        self._adding.append((entry, future))
        if self._adder is None or self._adder.done():
            self._adder = asyncio.create_task(self._add_batches())
        verdict = await future
        if verdict[0] == "busy":
            raise AlreadyQueuedError(verdict[1], verdict[2])
        return verdict

    async def _add_batches(self) -> None:
        while self._adding:
            batch, self._adding = self._adding[:ADD_BATCH], self._adding[ADD_BATCH:]
            try:
                payload = json.dumps([entry for entry, _ in batch])
                results = await self._enqueue_many(args=[self.prefix, payload])
            except Exception as error:
                for _, future in batch:
                    if not future.done():
                        future.set_exception(error)
                continue
            for (_, future), verdict in zip(batch, results, strict=True):
                if not future.done():
                    future.set_result([_s(v) for v in verdict])

    async def get(self, ticket_id: str) -> dict[str, str] | None:
        """A ticket's fields, or None when Redis does not know it."""
        raw = await self.redis.hgetall(self.ticket_key(ticket_id))
        if not raw:
            return None
        return {_s(k): _s(v) for k, v in raw.items()}

    async def player_ticket(self, player_id: str) -> str | None:
        """The player's last ticket id while its key lasts (active, or matched and kept),
        whatever its status."""
        value = await self.redis.get(f"{self.prefix}player:{player_id}")
        return None if value is None else _s(value)

    async def active_ticket(self, player_id: str) -> str | None:
        """The player's active ticket id, if any."""
        value = await self.redis.get(f"{self.prefix}player:{player_id}")
        if value is None:
            return None
        ticket = await self.get(_s(value))
        return _s(value) if ticket and ticket["status"] in ACTIVE else None

    async def cancel(self, ticket_id: str, player_id: str) -> str:
        """Cancel a searching or claimed ticket; returns the status now ("missing" if unknown)."""
        result = await self._cancel(
            args=[self.prefix, ticket_id, player_id, repr(time.time()), self.keep_s]
        )
        return _s(result)

    # ------------------------------------------------------------ player cache
    # P prof:<player> hash: name, bot ("1"/"0"), and "mu:<game>" per game ("none": unrated).
    # A cache of SQL for the enqueue path, written at login and on a miss, its game field
    # dropped when a game is rated; any missing field is a miss answered from SQL.

    async def cache_profile(
        self,
        player_id: str,
        name: str,
        bot: bool,
        means: dict[str, float | None],
        ttl_s: int,
    ) -> None:
        """Cache a player's name and rating means (None: unrated in that game)."""
        key = f"{self.prefix}prof:{player_id}"
        mapping: dict[str, str] = {"name": name, "bot": "1" if bot else "0"}
        mapping.update(
            {f"mu:{game}": "none" if mu is None else repr(mu) for game, mu in means.items()}
        )
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(key, mapping=mapping)  # type: ignore[arg-type]
        pipe.expire(key, ttl_s)
        await pipe.execute()

    async def forget_means(self, game: str, player_ids: Sequence[str]) -> None:
        """Drop cached means in one game (after it rated these players)."""
        pipe = self.redis.pipeline(transaction=False)
        for player_id in player_ids:
            pipe.hdel(f"{self.prefix}prof:{player_id}", f"mu:{game}")
        await pipe.execute()

    async def cached_profiles(
        self, player_ids: Sequence[str], game: str
    ) -> dict[str, tuple[str, bool, float | None]] | None:
        """(name, bot, mean in `game` or None) of every player, or None on any miss (the
        enqueue script reads the same fields itself)."""
        pipe = self.redis.pipeline(transaction=False)
        for player_id in player_ids:
            pipe.hmget(f"{self.prefix}prof:{player_id}", ["name", "bot", f"mu:{game}"])
        found: dict[str, tuple[str, bool, float | None]] = {}
        for player_id, (name, bot, mu) in zip(player_ids, await pipe.execute(), strict=True):
            if name is None or mu is None:
                return None
            mean = None if _s(mu) == "none" else float(_s(mu))
            found[player_id] = (_s(name), _s(bot) == "1", mean)
        return found

    async def pool_size(self, game: str, queue: str) -> int:
        return int(await self.redis.zcard(self.pool_key(game, queue)))

    async def load_pool(self, game: str, queue: str) -> list[Ticket]:
        """Every searching ticket of a pool, as the match function's input: this process's
        copy brought up to date from the pool's change log (a full read on the first call
        and whenever the copy cannot be trusted; see services.lobby.poolcache)."""
        return await self.pools.tickets(game, queue)

    async def acquire(self, game: str, queue: str, lock_ms: int) -> Lock | None:
        """Take a pool's matcher lock with a fresh fencing token, or None when it is held."""
        pool = f"{game}:{queue}"
        owner = uuid.uuid4().hex
        if not await self.redis.set(f"{self.prefix}lock:{pool}", owner, nx=True, px=lock_ms):
            return None
        token = int(await self.redis.incr(f"{self.prefix}fence:{pool}"))
        return Lock(pool, owner, token)

    async def unlock(self, lock: Lock) -> None:
        await self._unlock(keys=[f"{self.prefix}lock:{lock.pool}"], args=[lock.owner])

    async def claim(
        self,
        lock: Lock,
        game: str,
        queue: str,
        matches: Sequence[tuple[str, Sequence[str]]],
        lease_s: float,
        chunk: int = 500,
    ) -> list[bool] | None:
        """Claim each match's tickets atomically (all or none of a match); None when fenced off.

        `chunk` matches per script call (Redis serves others between calls), every call in
        one pipelined round trip.
        """
        deadline = repr(time.time() + lease_s)
        pipe = self.redis.pipeline(transaction=False)
        for start in range(0, len(matches), chunk):
            payload = json.dumps([[m, list(t)] for m, t in matches[start : start + chunk]])
            await self._claim(
                keys=[f"{self.prefix}fence:{lock.pool}"],
                args=[self.prefix, str(lock.token), deadline, game, queue, payload],
                client=pipe,
            )
        claimed: list[bool] = []
        for result in await pipe.execute():
            if result and int(result[0]) == -1:
                return None if not claimed else claimed + [False] * (len(matches) - len(claimed))
            claimed += [bool(int(r)) for r in result]
        return claimed

    async def finalize(
        self, match_id: str, game_id: str, variant: str, assignments: dict[str, str]
    ) -> tuple[bool, str]:
        """Mark a claimed match's tickets matched with their assignments (JSON per ticket).

        Returns (False, ticket) and changes nothing when a ticket is no longer claimed by
        this match (cancelled, or the claim lapsed).
        """
        args: list[Any] = [self.prefix, match_id, self.keep_s, game_id, variant, repr(time.time())]
        for ticket_id, assignment in assignments.items():
            args += [ticket_id, assignment]
        result = await self._finalize(args=args)
        if _s(result[0]) == "ok":
            return True, ""
        return False, f"{_s(result[1])} is {_s(result[2])}"

    async def finalize_many(
        self, matches: Sequence[tuple[str, str, str, dict[str, str]]], chunk: int = 250
    ) -> list[tuple[bool, str]]:
        """`finalize` for many matches (match id, game id, variant, ticket -> assignment
        JSON): `chunk` matches per script call, all in one pipelined round trip."""
        if not matches:
            return []
        pipe = self.redis.pipeline(transaction=False)
        stamp = repr(time.time())
        for start in range(0, len(matches), chunk):
            payload = json.dumps(
                [
                    [mid, gid, variant, list(tickets.items())]
                    for mid, gid, variant, tickets in matches[start : start + chunk]
                ]
            )
            await self._finalize_many(args=[self.prefix, self.keep_s, stamp, payload], client=pipe)
        results = [verdict for call in await pipe.execute() for verdict in call]
        return [
            (True, "") if _s(r[0]) == "ok" else (False, f"{_s(r[1])} is {_s(r[2])}")
            for r in results
        ]

    async def extend(self, match_ids: Sequence[str], lease_s: float) -> None:
        """Push back the lease of claims still held (a director still creating their games)."""
        if match_ids:
            deadline = time.time() + lease_s
            await self.redis.zadd(
                f"{self.prefix}claims", dict.fromkeys(match_ids, deadline), xx=True
            )

    async def release(self, match_id: str) -> int:
        """Return a match's still-claimed tickets to the pool; how many went back."""
        return int(
            await self._release(args=[self.prefix, match_id, repr(time.time()), self.keep_s])
        )

    async def reap(self, now: float | None = None) -> int:
        """Release every claim whose lease lapsed (a director died mid-match)."""
        now = time.time() if now is None else now
        lapsed = await self.redis.zrangebyscore(f"{self.prefix}claims", "-inf", now)
        total = 0
        for match_id in lapsed:
            total += await self.release(_s(match_id))
        return total

    async def expire_due(self, now: float | None = None, limit: int = 1000) -> int:
        """Expire searching tickets past their time to live."""
        now = time.time() if now is None else now
        return int(await self._expire(args=[self.prefix, repr(now), limit, self.keep_s]))
