"""The bot service: BotService over gRPC and the Celery bot-turn worker."""
