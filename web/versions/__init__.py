"""A bot version as its owner follows it: its check, its automatic SPRT against its predecessor, its verdict."""
