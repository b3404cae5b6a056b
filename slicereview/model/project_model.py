"""Value types of the project model's trained versions (``app/models/project_model.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ModelVersion:
    """One trained version of the project model, as stored (without its bytes).

    ``images``: the ids of the accepted images it was trained on; ``accepted``: how many
    accepted images the project had when it was trained; ``settings``: the engine's settings
    (JSON values); ``training``: the engine's counts (``positives``, ``negatives``, ...);
    ``score``: its held-out score as JSON values (``{}`` while not scored; see
    ``app/models/project_model.py``); ``seconds``: how long training and scoring took.
    """

    id: int
    version: int
    trained_at: str
    trained_by: str
    images: tuple[int, ...]
    accepted: int
    settings: dict[str, Any] = field(default_factory=dict)
    training: dict[str, Any] = field(default_factory=dict)
    score: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def name(self) -> str:
        """The model rater's name and version, ``project@vN``."""
        return f"project@v{self.version}"
