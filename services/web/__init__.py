"""The edge gateway: Connect and gRPC-Web for browsers, forwarded to the gRPC services.

Stateless (run any number of replicas); it also serves the built browser app (web/dist).
Run: `python -m services.web`.
"""
