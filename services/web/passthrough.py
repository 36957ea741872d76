"""Messages kept as bytes, and the gzip the gateway answers with.

Binary requests and answers cross the gateway undecoded: connect-python's binary codec
calls `ParseFromString` on what the endpoint's input type makes and `SerializeToString` on
what the handler returns, so a `RawMessage` carries the wire bytes from the HTTP body to
the gRPC call (identity serializers) and back. Connect JSON still needs the real classes.

`SmallGzip` is gzip as connect-python negotiates it (`Accept-Encoding` / the stream
headers), except that a message under `min_bytes` is sent as a stored (level 0) gzip
member: valid gzip for every client, without deflate's cost where it saves a few hundred
bytes at most (browsers always accept gzip, and most answers are small).
"""

from __future__ import annotations

import gzip
import zlib

GZIP_WBITS = 31  # zlib's container flag for a gzip member
MIN_COMPRESS_BYTES = 1024


class RawMessage:
    """A protobuf message as its serialized bytes (never parsed)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes = b"") -> None:
        self.data = data

    def ParseFromString(self, data: bytes | bytearray | memoryview) -> int:
        """Keep `data` as this message's bytes (the binary codec's decode)."""
        self.data = bytes(data)
        return len(self.data)

    def SerializeToString(self) -> bytes:
        """The bytes as received (the binary codec's encode)."""
        return self.data


class SmallGzip:
    """gzip that deflates only messages of at least `min_bytes` (at `level`)."""

    def __init__(self, min_bytes: int = MIN_COMPRESS_BYTES, level: int = 6) -> None:
        self.min_bytes = min_bytes
        self.level = level

    def name(self) -> str:
        """The encoding's name in HTTP headers."""
        return "gzip"

    def compress(self, data: bytes | bytearray | memoryview) -> bytes:
        """A gzip member of `data`: stored when small, deflated otherwise."""
        level = self.level if len(data) >= self.min_bytes else 0
        return zlib.compress(data, level, GZIP_WBITS)

    def decompress(self, data: bytes | bytearray | memoryview) -> bytes:
        """The bytes of a gzip body (one or more members)."""
        return gzip.decompress(data)
