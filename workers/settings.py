"""Reading a frozen settings dataclass from environment variables.

The referee and the workers both describe their settings as a frozen dataclass with one
environment variable per field; this is the one place that parses those variables, so
both report a bad value the same way."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any


def values_from_env(settings: type, names: Mapping[str, str], env: Mapping[str, str]) -> dict[str, Any]:
    """The fields of ``settings`` set in ``env`` (variable names from ``names``), each
    converted to the type of the field's default; empty variables count as unset."""
    defaults = settings()
    values: dict[str, Any] = {}
    for field in fields(settings):
        raw = env.get(names[field.name])
        if raw is None or raw == "":
            continue
        kind = type(getattr(defaults, field.name))
        try:
            values[field.name] = kind(raw)
        except ValueError:
            raise ValueError(f"{names[field.name]}={raw!r} is not a valid {kind.__name__}") from None
    return values
