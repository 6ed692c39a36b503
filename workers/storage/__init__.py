"""The Redis store of bots, tokens, match results and match logs."""
