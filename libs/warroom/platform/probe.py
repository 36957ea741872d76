"""`python -m warroom.platform.probe HOST:PORT [SERVICE]`: exit 0 when the gRPC health is SERVING.

Used by container healthchecks (docker-compose), where no grpc_health_probe binary exists.
"""

from __future__ import annotations

import sys

from warroom.platform.health import grpc_health


def main(argv: list[str] | None = None) -> int:
    """Check one endpoint; print its status; 0 if SERVING, 1 otherwise."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m warroom.platform.probe HOST:PORT [SERVICE]", file=sys.stderr)
        return 2
    status = grpc_health(args[0], args[1] if len(args) > 1 else "", timeout=3.0)
    print(status)
    return 0 if status == "SERVING" else 1


if __name__ == "__main__":
    sys.exit(main())
