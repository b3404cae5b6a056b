"""What the Annotate tab shows, Qt-free (:class:`AnnotateState`): the image, whose annotation in
which phase and round, who is at the keyboard, the annotation itself (``None`` until the first
edit creates it) and the active time gathered before it exists.

*You are* (:attr:`AnnotateState.acting_id`, the acting annotator) is distinct from *Showing*
(:attr:`AnnotateState.rater_id`, whose annotation is on screen); only your own annotation is
editable (:attr:`AnnotateState.own`). While a repeat is open (:attr:`AnnotateState.repeat_image`)
the annotation shown is the repeat's, round − the round chosen.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from slicereview.gui.common.listeners import Listeners
from slicereview.model import Annotation, Phase

#: (rater, image, phase, round) of an annotation, whether it exists yet or not.
Key = tuple[int, int, str, int]


@dataclass
class AnnotateState:
    """The Annotate tab's state (see the module docstring)."""

    image_id: int | None = None
    #: Whose annotation is shown ("Showing").
    rater_id: int | None = None
    #: Who uses the program ("You are").
    acting_id: int | None = None
    phase: str = Phase.FORMAL.value
    round: int = 1
    #: The image whose repeat is open (``None``: the first pass / the round chosen is shown).
    repeat_image: int | None = None
    #: The annotation shown, ``None`` until an edit creates it.
    annotation: Annotation | None = None
    #: The key of the annotation shown, even before it exists.
    key: Key | None = None
    #: Active time gathered where no annotation exists yet, written with the first edit.
    unsaved_ms: dict[Key, int] = field(default_factory=dict)
    #: The images each annotator is given per phase, keyed "rater:phase" (cached; cleared
    #: when images, annotations or claims appear).
    batches: dict[str, list[int]] = field(default_factory=dict)
    #: Whether the page is on screen (its tab shown): the image list follows its statuses,
    #: assignments and claims only then.
    shown: bool = False
    #: Called with the name of what changed ("context", "annotation").
    changed: Listeners = field(default_factory=Listeners, repr=False, compare=False)

    @property
    def own(self) -> bool:
        """Whether the annotation shown is the acting annotator's (editable)."""
        return self.rater_id is not None and self.rater_id == self.acting_id

    def set_context(self, rater_id: int | None, acting_id: int | None, phase: str,
                    round: int) -> None:
        self.rater_id, self.acting_id, self.phase, self.round = rater_id, acting_id, phase, round
        self.changed.emit("context")

    def key_round(self) -> int:
        """The round of the annotation to show: − round while a repeat is open (leaving the
        image closes the repeat)."""
        if self.repeat_image is not None and self.repeat_image != self.image_id:
            self.repeat_image = None
        return -self.round if self.repeat_image is not None else self.round

    def show(self, key: Key | None, annotation: Annotation | None) -> None:
        """The annotation of ``key`` is on screen (``None``: none yet)."""
        self.key, self.annotation = key, annotation
        self.changed.emit("annotation")

    def take_unsaved(self) -> int:
        """The active time gathered for the annotation shown before it existed (forgotten)."""
        return self.unsaved_ms.pop(self.key, 0) if self.key is not None else 0

    def keep_unsaved(self, ms: int) -> None:
        if self.key is not None:
            self.unsaved_ms[self.key] = self.unsaved_ms.get(self.key, 0) + ms
