"""Local processes: the arena started as separate processes, owned children, a private Redis."""
