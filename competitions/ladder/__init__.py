"""Ladders: continuous matchmaking play among the connected bots, one small tournament per round."""
