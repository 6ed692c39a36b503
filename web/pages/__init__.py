"""The pages, one module per group; each exposes ``routes`` for :func:`web.app.create_app`."""
