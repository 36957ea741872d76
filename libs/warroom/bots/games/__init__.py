"""Per-game evaluation functions for the heuristic bot and ISMCTS playout cut-offs."""
