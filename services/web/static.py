"""The built browser app (vite's `web/dist`) as static files, with cache headers.

Hashed build outputs under `assets/` are immutable (cached for a year); everything else,
index.html first, is `no-cache` (revalidated through its ETag on every load). Text files
are sent gzip-compressed to clients that accept it; each file's bytes and compressed bytes
are kept in memory until the file changes. A path that is not a file and has no extension
gets index.html (the app routes in the page).
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.web import metrics

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")
MIN_COMPRESS = 512
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]
CSP = (
    "default-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "style-src 'self' 'unsafe-inline'; font-src 'self' data:; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'self'"
)
NOT_BUILT = (
    "<!doctype html><meta charset=utf-8><title>Warroom</title>"
    "<h1>The browser app is not built</h1><p>Run <code>make web</code> (or <code>make run</code>, "
    "which builds it) and reload. The API is served here all the same.</p>"
)

Send = Any
Scope = dict[str, Any]


@dataclass(frozen=True)
class _Entry:
    stamp: tuple[int, int]
    body: bytes
    gzipped: bytes | None
    etag: str
    content_type: str


class StaticFiles:
    """ASGI handler serving one directory."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._cache: dict[Path, _Entry] = {}

    async def __call__(self, scope: Scope, send: Send) -> None:
        """Answer a GET or HEAD for a path of the directory."""
        if scope["method"] not in ("GET", "HEAD"):
            await _respond(send, 405, b"method not allowed", [(b"allow", b"GET, HEAD")])
            return
        if not (self.root / "index.html").is_file():
            await _respond(send, 503, NOT_BUILT.encode(), [(b"content-type", b"text/html")])
            return
        path = self._resolve(scope["path"])
        if path is None:
            await _respond(send, 404, b"not found", [(b"content-type", b"text/plain")])
            return
        entry = self._entry(path)
        relative = path.relative_to(self.root).as_posix()
        await self._send_entry(scope, send, entry, relative)

    def _resolve(self, url_path: str) -> Path | None:
        relative = url_path.lstrip("/")
        candidate = (self.root / relative).resolve() if relative else self.root / "index.html"
        if not candidate.is_relative_to(self.root):
            return None
        if candidate.is_file():
            return candidate
        if "." not in relative.rsplit("/", 1)[-1] and not relative.startswith("assets/"):
            return self.root / "index.html"
        return None

    def _entry(self, path: Path) -> _Entry:
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        entry = self._cache.get(path)
        if entry is not None and entry.stamp == stamp:
            return entry
        body = path.read_bytes()
        content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if content_type.startswith("text/") or content_type == "application/javascript":
            content_type += "; charset=utf-8"
        gzipped = None
        if content_type.startswith(COMPRESSIBLE) and len(body) >= MIN_COMPRESS:
            gzipped = gzip.compress(body, compresslevel=9, mtime=0)
        etag = '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'
        entry = _Entry(stamp, body, gzipped, etag, content_type)
        self._cache[path] = entry
        return entry

    async def _send_entry(self, scope: Scope, send: Send, entry: _Entry, relative: str) -> None:
        request = {k.lower(): v for k, v in scope.get("headers", ())}
        cache = IMMUTABLE if relative.startswith("assets/") else REVALIDATE
        headers = [
            (b"content-type", entry.content_type.encode()),
            (b"cache-control", cache.encode()),
            (b"etag", entry.etag.encode()),
            (b"vary", b"accept-encoding"),
        ]
        if entry.content_type.startswith("text/html"):
            headers.append((b"content-security-policy", CSP.encode()))
        if entry.etag.encode() in _etags(request.get(b"if-none-match", b"")):
            await _respond(send, 304, b"", headers, head=True)
            return
        body = entry.body
        if entry.gzipped is not None and b"gzip" in request.get(b"accept-encoding", b""):
            body = entry.gzipped
            headers.append((b"content-encoding", b"gzip"))
        await _respond(send, 200, body, headers, head=scope["method"] == "HEAD")


def _etags(header: bytes) -> set[bytes]:
    return {tag.strip().removeprefix(b"W/") for tag in header.split(b",") if tag.strip()}


async def _respond(
    send: Send,
    status: int,
    body: bytes,
    headers: list[tuple[bytes, bytes]],
    *,
    head: bool = False,
) -> None:
    """Send a whole response (for HEAD and 304: the headers only)."""
    metrics.STATIC.labels(str(status)).inc()
    all_headers = [*headers, *SECURITY_HEADERS]
    if status != 304 and not any(name == b"content-length" for name, _ in all_headers):
        all_headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": all_headers})
    await send({"type": "http.response.body", "body": b"" if head else body})
