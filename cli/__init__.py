"""The ``pitch-arena`` command line: its commands, the local demo, terminal views and progress."""
