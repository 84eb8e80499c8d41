"""The settings as read: each setting's value from where it is set.

The settings themselves are declared in settings.py. Precedence: defaults, then `TRACEDIFF_<NAME>`
environment variables, then the test config dict given to `create_app`.
"""

import os

from .common.tokens import Keyring, TokenError
from .settings import SETTINGS, Setting

_KNOWN = frozenset(f"TRACEDIFF_{setting.name}" for setting in SETTINGS)
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
CHOICES = {
    "SYNCHRONOUS": ("FULL", "NORMAL", "EXTRA", "OFF"),
    "ANALYZER": ("background", "off"),
    "LOG_FORMAT": ("text", "json"),
}


class SettingError(ValueError):
    """A TRACEDIFF_* variable holds a value its setting cannot take."""


def _convert(name: str, raw: str, default):
    text = raw.strip()
    if isinstance(default, bool):
        if text.lower() not in (*_TRUE, *_FALSE):
            # never guess: a typo in TRACEDIFF_REDACT must not switch redaction off
            raise SettingError(f"TRACEDIFF_{name}={raw!r}: use one of {', '.join(_TRUE + _FALSE)}")
        return text.lower() in _TRUE
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            raise SettingError(f"TRACEDIFF_{name}={raw!r}: must be a number of seconds") from None
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            raise SettingError(f"TRACEDIFF_{name}={raw!r}: must be a whole number") from None
    choices = CHOICES.get(name)
    if not choices:
        return raw
    for choice in choices:
        if choice.upper() == text.upper():
            return choice
    raise SettingError(f"TRACEDIFF_{name}={raw!r}: use one of {', '.join(choices)}")


def _checked(setting: Setting, raw: str):
    """Convert a variable's value and refuse a number below the setting's minimum."""
    value = _convert(setting.name, raw, setting.default)
    if setting.minimum is not None and not isinstance(value, bool) and value < setting.minimum:
        # a negative skew, retention or headroom would be taken at its word and quietly do harm
        raise SettingError(f"TRACEDIFF_{setting.name}={raw!r}: must be {setting.minimum:g} or more")
    return value


def load_settings(overrides: dict | None = None, environ=os.environ) -> dict:
    """Return every setting; raise SettingError for a bad value.

    From defaults, the environment, the settings file and overrides."""
    if overrides and all(setting.name in overrides for setting in SETTINGS):
        # complete already (`tracediff serve` hands its workers what it read)
        return dict(overrides)
    environ = {**environ, **read_settings_file(environ.get("TRACEDIFF_SETTINGS_FILE", ""))}
    settings = {}
    for setting in SETTINGS:
        raw = environ.get(f"TRACEDIFF_{setting.name}")
        settings[setting.name] = setting.default if raw is None else _checked(setting, raw)
    settings.update(overrides or {})
    _check_tokens(settings)
    return settings


def _check_tokens(settings: dict) -> None:
    try:
        Keyring.from_settings(settings)
    except TokenError as error:
        raise SettingError(str(error)) from None


def read_settings_file(path: str) -> dict[str, str]:
    """Return the TRACEDIFF_* assignments of a settings file.

    Blank lines and # comments skipped."""
    if not path.strip():
        return {}
    try:
        lines = open(path.strip(), encoding="utf-8").read().splitlines()
    except OSError as error:
        raise SettingError(
            f"TRACEDIFF_SETTINGS_FILE={path!r}: cannot read it ({error.strerror or error})"
        ) from None
    found = {}
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        name, equals, value = text.removeprefix("export ").partition("=")
        if not equals or name.strip() not in _KNOWN:
            raise SettingError(
                f"{path}:{number}: expected TRACEDIFF_NAME=value with a setting README lists"
            )
        found[name.strip()] = value.strip().strip("\"'")
    return found


def token_set(value) -> frozenset[str]:
    """Split a comma-separated setting into a set of its entries."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return frozenset(value)
    return frozenset(part.strip() for part in str(value or "").split(",") if part.strip())
