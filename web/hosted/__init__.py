"""Hosted bots on the web: submitting versions (:mod:`.api`, and the upload form of a bot's
page), their status and their logs, for the bot's owner only."""
