"""The engine: evaluation, search, cube decisions, rollouts, analysis (imports the core, never the apps)."""
