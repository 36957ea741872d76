"""The game-state authority: the only writer of game state (GameService over grpc.aio)."""
