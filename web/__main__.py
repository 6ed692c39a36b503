"""``python -m web``: the same as ``pitch-arena web``."""

from workers.cli.main import app

if __name__ == "__main__":
    app(["web"])
