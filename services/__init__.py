"""Warroom's gRPC services: `services.common` (shared infrastructure), `services.game`, ..."""
