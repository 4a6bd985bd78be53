"""The web platform: `backgammon serve` (FastAPI app, tables, storage, static UI)."""
