"""Player credentials and tokens: argon2id password hashes, signed expiring JWTs."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import jwt
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

ALGORITHM = "HS256"
ISSUER = "warroom-lobby"

_hasher = PasswordHasher()


def hash_password(password: str) -> str:
    """An argon2id hash of a password (memory-hard, salted)."""
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    """Whether `password` matches the stored hash."""
    try:
        return _hasher.verify(password_hash, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a valid token speaks for."""

    player_id: str
    display_name: str
    guest: bool
    expires_at: float


class TokenError(Exception):
    """A token that is missing, malformed, badly signed or expired."""


def issue_token(
    key: bytes, player_id: str, display_name: str, guest: bool, ttl_s: int
) -> tuple[str, float]:
    """A signed token for a player and its expiry (epoch seconds)."""
    now = time.time()
    expires = now + ttl_s
    claims = {
        "sub": player_id,
        "name": display_name,
        "guest": guest,
        "iat": int(now),
        "exp": int(expires),
        "iss": ISSUER,
    }
    return jwt.encode(claims, key, algorithm=ALGORITHM), float(int(expires))


def read_token(key: bytes | Sequence[bytes], token: str) -> Identity:
    """The identity of a valid token; raises TokenError naming what is wrong.

    `key` may be a key ring (current key first, then retired ones): a token signed by any
    of them is accepted, so rotating the key logs nobody out before their token expires.
    """
    ring = (key,) if isinstance(key, bytes) else tuple(key)
    claims: dict[str, Any] = {}
    for index, candidate in enumerate(ring):
        try:
            claims = jwt.decode(
                token,
                candidate,
                algorithms=[ALGORITHM],
                issuer=ISSUER,
                options={"require": ["exp", "sub"]},
            )
            break
        except jwt.InvalidSignatureError:
            if index == len(ring) - 1:
                raise TokenError("invalid token: Signature verification failed") from None
        except jwt.ExpiredSignatureError:
            raise TokenError("token expired; log in again") from None
        except jwt.InvalidTokenError as exc:
            raise TokenError(f"invalid token: {exc}") from None
    return Identity(
        str(claims["sub"]),
        str(claims.get("name", "")),
        bool(claims.get("guest")),
        float(claims["exp"]),
    )
