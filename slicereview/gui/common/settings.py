"""User settings (recent projects, window geometry) in an INI file under platformdirs' config dir.

``SLICEREVIEW_CONFIG_DIR`` overrides the folder (tests use it so they never touch a real
user's settings).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
from PySide6.QtCore import QSettings

MAX_RECENT = 10


def config_dir() -> Path:
    override = os.environ.get("SLICEREVIEW_CONFIG_DIR")
    return Path(override) if override else Path(platformdirs.user_config_dir("slicereview"))


def settings() -> QSettings:
    folder = config_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)


def recent_projects() -> list[Path]:
    value = settings().value("recent_projects", [])
    if isinstance(value, str):  # (QSettings gives one stored item back as a string)
        value = [value]
    return [Path(str(v)) for v in value] if isinstance(value, list) else []


def add_recent_project(path: Path) -> None:
    path = Path(path).absolute()
    items = [p for p in recent_projects() if p != path]
    s = settings()
    s.setValue("recent_projects", [str(p) for p in [path, *items][:MAX_RECENT]])
    s.sync()


def recent_servers() -> list[str]:
    """The URLs of server projects opened lately, newest first (never with a password)."""
    value = settings().value("recent_servers", [])
    if isinstance(value, str):
        value = [value]
    return [str(v) for v in value] if isinstance(value, list) else []


def add_recent_server(url: str) -> None:
    """Remember ``url``, which the caller has stripped of any password
    (:func:`slicereview.store.location.describe`)."""
    items = [u for u in recent_servers() if u != url]
    s = settings()
    s.setValue("recent_servers", [url, *items][:MAX_RECENT])
    s.sync()


#: What the "New rating session" dialog remembers between sessions.
#: The new-session dialog's remembered choices; the prompts keep the keys question_pairwise and
#: question_classify they were first stored under.
RATING_CHOICES = ("kind", "rater", "image_set", "algorithm", "labels", "question_pairwise",
                  "question_classify", "confidence_shared", "confidence_budget",
                  "confidence_tau", "confidence_rank")


def rating_choices() -> dict[str, str]:
    """The last choices made in the "New rating session" dialog (missing keys: never made)."""
    s = settings()
    return {k: str(s.value(f"new_rating/{k}")) for k in RATING_CHOICES
            if s.value(f"new_rating/{k}") not in (None, "")}


def remember_rating_choices(choices: dict[str, str]) -> None:
    s = settings()
    for k, v in choices.items():
        if k in RATING_CHOICES:
            s.setValue(f"new_rating/{k}", v)
    s.sync()


def acting_annotator() -> str:
    """The name last chosen in the Annotate tab's "You are" box ("" if never)."""
    return str(settings().value("annotate/you_are", "") or "")


def remember_acting_annotator(name: str) -> None:
    s = settings()
    s.setValue("annotate/you_are", name)
    s.sync()


def colour_scheme() -> str:
    """The polygon colour scheme chosen in the View menu ("standard" when never chosen)."""
    return str(settings().value("view/colour_scheme", "standard") or "standard")


def remember_colour_scheme(name: str) -> None:
    s = settings()
    s.setValue("view/colour_scheme", name)
    s.sync()
