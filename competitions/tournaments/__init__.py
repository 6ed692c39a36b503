"""Tournaments: schedules, launching and finishing them, their keys in Redis, the final table."""
