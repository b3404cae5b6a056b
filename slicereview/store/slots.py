"""``project.slots``: the images of a batch handed out by claims (schema format 8).

A batch opened for claiming has ``per_image`` *slots* per image (the annotators each image
needs). :meth:`Slots.claim` gives an annotator the first free slot, in the batch's order, of
an image they hold no slot of yet, in one short transaction. On a server that is one
statement, ``UPDATE slots ... WHERE id = (SELECT ... FOR UPDATE SKIP LOCKED) RETURNING``
(:data:`TAKE_FIRST_FREE`): its subquery locks the slot (a slot another claim is taking is
passed over, not waited for), and a lock per annotator, taken before the statement starts,
keeps one annotator's windows from claiming two slots of one image at once; ``BEGIN``, the
lock, the statement and ``COMMIT`` go to the server in one round trip
(:meth:`~.database.Database.claim_row`). On a file the transaction is the file's one writer
and the claim a ``SELECT`` and an ``UPDATE`` (the system SQLite of older platforms has no
``RETURNING``). So two people never get the same slot, nobody gets one image twice, and no
image gets more annotators than it needs.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.model import NewImage
>>> from slicereview.store import Project
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> (folder / "a.png").write_bytes(b"a"), (folder / "b.png").write_bytes(b"b")
(1, 1)
>>> with Project.create(folder / "p.srproj") as project:
...     _ = project.images.add_source(folder / "a.png", "0" * 64, "png", [NewImage(1, 1)])
...     _ = project.images.add_source(folder / "b.png", "1" * 64, "png", [NewImage(1, 1)])
...     ann, other = project.raters.add("ann"), project.raters.add("bob")
...     batch = project.workflow.add_batch("b", "formal", [1, 2])
...     project.slots.open(batch, [1, 2], per_image=1)
...     first = [project.slots.claim(batch, ann), project.slots.claim(batch, other)]
...     first, project.slots.claim(batch, ann), project.slots.claimed(batch, ann)
([1, 2], None, [1])
"""

from __future__ import annotations

from collections.abc import Sequence

from slicereview.store._base import Part, now_iso

#: The first free slot of a batch (``?``: the batch) in its order, of an image the rater
#: (``?``: batch, rater) holds no slot of. (``NOT IN``: the rater's images read once, a hashed
#: subquery; a ``NOT EXISTS`` per free slot made PostgreSQL read them again for each: 22 ms
#: of 400 slots.)
_FIRST_FREE = ("FROM slots WHERE batch_id = ? AND rater_id IS NULL AND image_id NOT IN "
               "(SELECT image_id FROM slots WHERE batch_id = ? AND rater_id = ?) "
               "ORDER BY position, slot LIMIT 1")
#: A claim on a file: the first free slot (``?``: batch, batch, rater), then ``UPDATE``.
FIRST_FREE = "SELECT id, image_id " + _FIRST_FREE
#: A claim on a server, one statement (``?``: rater, time, batch, batch, rater): the first
#: free slot, locked by its subquery (``FOR UPDATE SKIP LOCKED``), taken; its image.
TAKE_FIRST_FREE = ("UPDATE slots SET rater_id = ?, claimed_at = ? WHERE id = (SELECT id "
                   + _FIRST_FREE + " FOR UPDATE SKIP LOCKED) RETURNING image_id")


#: A claim of one image's free slot (``?``: rater, time, batch, image), locked as
#: :data:`TAKE_FIRST_FREE` locks it; its image.
TAKE_OF_IMAGE = ("UPDATE slots SET rater_id = ?, claimed_at = ? WHERE id = (SELECT id FROM "
                 "slots WHERE batch_id = ? AND image_id = ? AND rater_id IS NULL ORDER BY slot "
                 "LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING image_id")


class Slots(Part):
    """Claims of a batch's images (see the module docstring)."""

    def open(self, batch_id: int, image_ids: Sequence[int], per_image: int) -> None:
        """Hand the batch's images out by claims, ``per_image`` annotators each, in the order
        given; ``ValueError`` when the batch is already open for claiming."""
        if per_image < 1:
            raise ValueError("an image needs at least one annotator")
        with self.transaction():
            if self.is_open(batch_id):
                raise ValueError("this batch already hands out its images by claims")
            self.db.executemany(
                "INSERT INTO slots (batch_id, image_id, slot, position) VALUES (?, ?, ?, ?)",
                [(batch_id, image_id, slot, position)
                 for position, image_id in enumerate(image_ids) for slot in range(per_image)])

    def is_open(self, batch_id: int) -> bool:
        """Whether the batch hands out its images by claims."""
        return self.db.execute("SELECT 1 FROM slots WHERE batch_id = ? LIMIT 1",
                               (batch_id,)).fetchone() is not None

    def claim(self, batch_id: int, rater_id: int) -> int | None:
        """Claim the next free slot for ``rater_id``; its image id, or ``None`` when every
        image they may still get is taken (one short transaction, see the module docstring)."""
        if self.db.kind == "postgres":
            taken = self.db.claim_row(rater_id, TAKE_FIRST_FREE,
                                      (rater_id, now_iso(), batch_id, batch_id, rater_id))
            return None if taken is None else int(taken[0])
        with self.transaction():
            row = self.db.execute(FIRST_FREE, (batch_id, batch_id, rater_id)).fetchone()
            if row is None:
                return None
            self.db.execute("UPDATE slots SET rater_id = ?, claimed_at = ? WHERE id = ?",
                            (rater_id, now_iso(), row[0]))
        return int(row[1])

    def claim_image(self, batch_id: int, image_id: int, rater_id: int) -> bool:
        """Claim a free slot of one image for ``rater_id`` (an image opened by hand), under
        the lock of :meth:`claim`; whether there was one. The caller checked that they hold
        none of it (a second is refused by the key ``(batch_id, image_id, rater_id)``)."""
        with self.transaction():
            if self.db.kind == "postgres":
                return self.db.claim_row(rater_id, TAKE_OF_IMAGE,
                                         (rater_id, now_iso(), batch_id, image_id)) is not None
            return self.db.execute(
                "UPDATE slots SET rater_id = ?, claimed_at = ? WHERE id = (SELECT id FROM slots "
                "WHERE batch_id = ? AND image_id = ? AND rater_id IS NULL ORDER BY slot LIMIT 1)",
                (rater_id, now_iso(), batch_id, image_id)).rowcount == 1

    def of_image(self, image_id: int) -> list[tuple[int, int | None]]:
        """``(batch_id, rater_id)`` of every slot of the image, in any batch handed out by
        claims (none: no such batch holds it)."""
        return [(r[0], r[1]) for r in self.db.execute(
            "SELECT batch_id, rater_id FROM slots WHERE image_id = ? ORDER BY batch_id, slot",
            (image_id,))]

    def claimed(self, batch_id: int, rater_id: int) -> list[int]:
        """The images ``rater_id`` claimed in the batch, in the batch's order."""
        return [r[0] for r in self.db.execute(
            "SELECT image_id FROM slots WHERE batch_id = ? AND rater_id = ? ORDER BY position",
            (batch_id, rater_id))]

    def release(self, batch_id: int, rater_id: int, image_ids: Sequence[int]) -> int:
        """Hand ``rater_id``'s claims on ``image_ids`` of the batch back (free for others);
        how many were handed back."""
        with self.transaction():
            return sum(self.db.execute(
                "UPDATE slots SET rater_id = NULL, claimed_at = NULL WHERE batch_id = ? AND "
                "rater_id = ? AND image_id = ?", (batch_id, rater_id, i)).rowcount
                for i in image_ids)

    def counts(self, batch_id: int) -> tuple[int, int]:
        """``(claimed, total)`` slots of the batch."""
        row = self.db.execute("SELECT count(rater_id), count(*) FROM slots WHERE batch_id = ?",
                              (batch_id,)).fetchone()
        return int(row[0]), int(row[1])

    def all(self, batch_id: int) -> list[tuple[int, int, int | None]]:
        """``(image_id, slot, rater_id)`` of every slot of the batch, in order."""
        return [(r[0], r[1], r[2]) for r in self.db.execute(
            "SELECT image_id, slot, rater_id FROM slots WHERE batch_id = ? "
            "ORDER BY position, slot", (batch_id,))]
