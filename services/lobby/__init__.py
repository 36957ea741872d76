"""The lobby: players and auth, custom tables, matchmaking, ratings (LobbyService)."""
