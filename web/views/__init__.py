"""Pure view builders for the pages (no I/O): charts, the replay's and the live table's models."""
