"""Running the platform: the `make run` supervisor, health probes and the `make demo` driver."""
