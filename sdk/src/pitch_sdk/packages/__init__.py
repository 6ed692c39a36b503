"""Bot packages: what an author submits for the arena to host (see :mod:`.manifest`)."""
