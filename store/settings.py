"""Reading a frozen settings dataclass from environment variables, and writing it back.

The referee, the workers and the web arena each describe their settings as a frozen
dataclass with one environment variable per field; this is the one place that parses and
writes those variables, so all of them report a bad value the same way and hand their
settings to a child process the same way."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any, TypeVar

Settings = TypeVar("Settings")


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
            values[field.name] = _switch(raw) if kind is bool else kind(raw)
        except ValueError:
            raise ValueError(f"{names[field.name]}={raw!r} is not a valid {kind.__name__}") from None
    return values


def _switch(raw: str) -> bool:
    """A switch's value: ``bool("0")`` is true, so the words are read instead."""
    word = raw.strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    raise ValueError(raw)


def settings_from_env(settings: type[Settings], names: Mapping[str, str], env: Mapping[str, str],
                      overrides: Mapping[str, Any]) -> Settings:
    """``settings`` built from ``env`` (see :func:`values_from_env`), then ``overrides``
    that are not ``None`` (command-line flags left unset do not hide a variable)."""
    values = values_from_env(settings, names, env)
    values.update({key: value for key, value in overrides.items() if value is not None})
    return settings(**values)


def settings_to_env(settings: Any, names: Mapping[str, str]) -> dict[str, str]:
    """The environment that reproduces ``settings`` (a settings dataclass) in another process."""
    return {names[field.name]: str(getattr(settings, field.name)) for field in fields(settings)}
