"""Gateway CPU per forwarded call, against a canned gRPC upstream (no authority, no stores).

`bench/web.py` measures the gateway inside the whole platform, where its latency swings
with the authority, PostgreSQL and the load generator sharing two cores. This one isolates
the gateway's own cost, which does not depend on the machine's load as much: a child
process serves `warroom.v1.GameService` with one canned `SubmitActionResponse` (a toy-game
sized seat view) for every unary call, the gateway runs as in production
(`python -m services.web`, uvloop) in another, and this process sends `SubmitAction`
through it with connect-python's client, `--concurrency` calls in flight. It reports the
gateway's CPU time (user + system, /proc) per forwarded call for each client style:

- `connect-python`: the client's defaults (gzip request body, gzip accepted);
- `browser`: what the web app's connect-web transport sends (binary, no request
  compression, `accept-encoding: gzip, deflate, br`, as a browser's fetch adds);
- `json`: Connect JSON, uncompressed.

Usage:  .venv/bin/python bench/web_gateway.py [--calls 4000] [--concurrency 100]
        [--profile out.prof]  (the gateway under cProfile; read it with pstats)
Prints a table; writes nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "libs"))
sys.path.insert(0, str(ROOT / "bench"))

import grpc  # noqa: E402
from connectrpc.compression.gzip import GzipCompression  # noqa: E402
from google.protobuf import any_pb2  # noqa: E402

from warroom.platform.health import free_port, port_open  # noqa: E402
from warroom.v1 import common_pb2, game_pb2  # noqa: E402
from warroom.v1.game_connect import GameServiceClient  # noqa: E402

SERVICE = "warroom.v1.GameService"


def canned_response() -> game_pb2.SubmitActionResponse:
    """A SubmitAction answer shaped like a toy game's (two seats, six options, events)."""
    decision = common_pb2.Decision(
        decision_id="d-7f3a9c21", game_version=12, seats=[1], kind="place", prompt="Pick one"
    )
    for i in range(6):
        decision.options.add(id=f"opt-{i}", label=f"Take {i}")
    board = any_pb2.Any()
    board.Pack(common_pb2.Decision(kind="board", prompt="x" * 100, seats=[0, 1] * 8))
    view = game_pb2.SeatView(
        game_id="8c1f2e7a9b3d4c5e6f708192a3b4c5d6",
        variant="duel",
        version=12,
        seat=1,
        rules_id="toy",
        content_version="toy-1",
        decision=decision,
        view=board,
    )
    for i in range(4):
        view.events.add(version=8 + i, kind="log", text=f"seat {i % 2} took {i}")
    return game_pb2.SubmitActionResponse(version=12, view=view)


async def serve_upstream(port: int) -> None:
    """A gRPC server answering every GameService unary call with the canned response."""
    answer = canned_response().SerializeToString()

    async def unary(_request: bytes, _context: Any) -> bytes:
        return answer

    class Handler(grpc.GenericRpcHandler):
        def service(self, details: Any) -> Any:
            if details.method.startswith(f"/{SERVICE}/"):
                return grpc.unary_unary_rpc_method_handler(unary)
            return None

    server = grpc.aio.server()
    server.add_generic_rpc_handlers((Handler(),))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


def serve_plain(port: int) -> None:
    """uvicorn as the gateway runs it (httptools, uvloop), with an ASGI app that answers
    every request with the canned bytes: the HTTP side of a forwarded call, alone."""
    import uvicorn

    answer = canned_response().SerializeToString()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        headers = [(b"content-type", b"application/proto")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        loop="uvloop",
        http="httptools",
        lifespan="off",
        log_level="warning",
        access_log=False,
    )


async def grpc_floor(port: int, calls: int, concurrency: int) -> float:
    """CPU seconds per call of this process making grpc.aio calls to the canned upstream,
    as the gateway makes them (bytes, metadata, deadline): the gRPC side, alone."""
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    call: Any = channel.unary_unary(f"/{SERVICE}/SubmitAction")
    data = request().SerializeToString()
    metadata = [("authorization", "Bearer seat-token")]
    left = calls

    async def loop() -> None:
        nonlocal left
        while left > 0:
            left -= 1
            await call(data, metadata=metadata, timeout=30)

    await call(data, timeout=30)
    began = time.process_time()
    await asyncio.gather(*(loop() for _ in range(concurrency)))
    used = time.process_time() - began
    await channel.close()
    return used / calls


def floors(calls: int, concurrency: int, rounds: int) -> dict[str, list[float]]:
    """Microseconds of CPU per call of each half of a forwarded call, measured alone: the
    HTTP server answering canned bytes, and a grpc.aio client (on uvloop)."""
    import uvloop

    upstream_port, plain_port = free_port(), free_port()
    upstream = start_upstream(upstream_port)
    plain = subprocess.Popen([sys.executable, __file__, "--plain", str(plain_port)])
    out: dict[str, list[float]] = {"HTTP server alone": [], "grpc.aio client alone": []}
    try:
        wait_port(upstream_port, upstream)
        wait_port(plain_port, plain)
        for _ in range(rounds):
            url = f"http://127.0.0.1:{plain_port}"
            cpu, _ = uvloop.run(drive(url, "browser", calls, concurrency, plain.pid))
            out["HTTP server alone"].append(cpu * 1e6)
            grpc_cpu = uvloop.run(grpc_floor(upstream_port, calls, concurrency))
            out["grpc.aio client alone"].append(grpc_cpu * 1e6)
    finally:
        plain.kill()
        upstream.kill()
        plain.wait(10)
        upstream.wait(10)
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_port(port: int, process: subprocess.Popen[bytes]) -> None:
    """Wait until a child listens on `port` (fails if it exits or takes a minute)."""
    deadline = time.monotonic() + 60
    while not port_open("127.0.0.1", port):
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("a child process did not start")
        time.sleep(0.1)


def request() -> game_pb2.SubmitActionRequest:
    """The SubmitAction every call sends."""
    return game_pb2.SubmitActionRequest(
        game_id="8c1f2e7a9b3d4c5e6f708192a3b4c5d6",
        token="seat-token-" + "x" * 120,
        expected_version=11,
        decision_id="d-7f3a9c21",
        option_id="opt-3",
        idempotency_key="bench-1-1",
    )


def client_for(style: str, url: str) -> tuple[GameServiceClient, Any]:
    """A Connect client of one style and the headers it adds to each call."""
    if style == "connect-python":
        return GameServiceClient(url), None
    if style == "browser":
        client = GameServiceClient(
            url, send_compression=None, accept_compression=[GzipCompression()]
        )
        return client, {"accept-encoding": "gzip, deflate, br"}
    return GameServiceClient(url, proto_json=True, send_compression=None), None


async def drive(
    url: str, style: str, calls: int, concurrency: int, pid: int
) -> tuple[float, float]:
    """(gateway CPU seconds per call, wall seconds per call) over `calls` SubmitActions."""
    client, headers = client_for(style, url)
    message = request()
    for _ in range(50):  # warm up: channels, caches
        await client.submit_action(message, headers=headers)
    left = calls

    async def loop() -> None:
        nonlocal left
        while left > 0:
            left -= 1
            await client.submit_action(message, headers=headers)

    cpu = cpu_seconds(pid)
    began = time.perf_counter()
    await asyncio.gather(*(loop() for _ in range(concurrency)))
    wall = time.perf_counter() - began
    used = cpu_seconds(pid) - cpu
    await client.close()
    return used / calls, wall / calls


def start_upstream(port: int) -> subprocess.Popen[bytes]:
    """The canned upstream as a child process."""
    return subprocess.Popen([sys.executable, __file__, "--upstream", str(port)])


def start_gateway(
    upstream: int, port: int, profile: str | None, root: Path = ROOT
) -> subprocess.Popen[bytes]:
    """`python -m services.web` of `root` forwarding GameService to the upstream."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARROOM_")}
    env.update(
        WARROOM_ENV="development",
        WARROOM_HOST="127.0.0.1",
        WARROOM_LOG_LEVEL="WARNING",
        WARROOM_WEB_PORT=str(port),
        WARROOM_WEB_METRICS_PORT=str(free_port()),
        WARROOM_WEB_GAME_ENDPOINT=f"127.0.0.1:{upstream}",
        PYTHONPATH=f"{root}:{ROOT}:{ROOT / 'libs'}",
    )
    command = [sys.executable]
    if profile:
        command += ["-m", "cProfile", "-o", profile]
    command += ["-m", "services.web"]
    return subprocess.Popen(command, cwd=root, env=env)


Results = dict[tuple[str, str], list[float]]


async def measure(
    styles: list[str],
    calls: int,
    concurrency: int,
    rounds: int,
    trees: dict[str, Path],
    profile: str | None = None,
) -> Results:
    """(tree name, client style) -> the gateway's CPU microseconds per call of each round.

    One gateway per tree (`current` is this checkout), all forwarding to one canned upstream,
    driven in turn, round after round, so that the machine's load falls on each alike.
    """
    upstream_port = free_port()
    upstream = start_upstream(upstream_port)
    gateways = {}
    for name, root in trees.items():
        port = free_port()
        gateways[name] = (port, start_gateway(upstream_port, port, profile, root))
    results: Results = {}
    try:
        wait_port(upstream_port, upstream)
        for port, process in gateways.values():
            wait_port(port, process)
        for _ in range(rounds):
            for style in styles:
                for name, (port, process) in gateways.items():
                    url = f"http://127.0.0.1:{port}"
                    cpu, _wall = await drive(url, style, calls, concurrency, process.pid)
                    results.setdefault((name, style), []).append(cpu * 1e6)
    finally:
        for _port, process in gateways.values():
            process.send_signal(signal.SIGINT)
            process.wait(30)
        upstream.kill()
        upstream.wait(10)
    return results


def table(results: Results) -> list[str]:
    """Markdown rows: min and median CPU per call, and every round's figure."""
    lines = ["| gateway | client | CPU us/call, min | median | rounds |", "|---|---|---:|---:|---|"]
    for (name, style), values in results.items():
        ordered = sorted(values)
        rounds = " ".join(f"{v:.0f}" for v in values)
        lines.append(
            f"| {name} | {style} | {ordered[0]:.0f} | {ordered[len(ordered) // 2]:.0f} | {rounds} |"
        )
    return lines


async def main() -> None:
    """Run the measurement the command line asks for and print its table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--styles", default="connect-python,browser,json")
    parser.add_argument("--profile", help="run the gateway under cProfile, writing this file")
    parser.add_argument(
        "--baseline",
        type=Path,
        help="also run the gateway of this tree (e.g. `git archive` of an older commit's "
        "services/), rounds interleaved with the current one",
    )
    parser.add_argument("--floors", action="store_true", help="also measure each half alone")
    parser.add_argument("--upstream", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.upstream:
        await serve_upstream(args.upstream)
        return
    trees = {"current": ROOT} | ({"baseline": args.baseline} if args.baseline else {})
    print(
        f"load average {os.getloadavg()[0]:.2f}; {args.calls} calls, "
        f"{args.concurrency} in flight, {args.rounds} round(s)"
    )
    results = await measure(
        args.styles.split(","), args.calls, args.concurrency, args.rounds, trees, args.profile
    )
    if args.floors:
        halves = await asyncio.to_thread(floors, args.calls, args.concurrency, args.rounds)
        results |= {(name, "browser"): values for name, values in halves.items()}
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    print("\n".join(table(results)))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--plain"]:
        serve_plain(int(sys.argv[2]))
    else:
        asyncio.run(main())
