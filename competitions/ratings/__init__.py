"""Ratings: the pure Elo and Bradley–Terry model, and the live leaderboards kept in Redis."""
