"""Pitch Arena's bot SDK: the rules engine, built-in bots and local match tools."""

__version__ = "0.1.0"
