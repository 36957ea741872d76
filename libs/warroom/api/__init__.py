"""Glue between the rules engine and the protobuf API (shared by services, bots and the SDK)."""
