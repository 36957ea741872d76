"""CatalogService: the game catalogue over gRPC (a thin adapter over `warroom.catalog`)."""
