"""Seeded, version-independent orders: presentation order, left/right placement, pair schedules.

Everything here is a pure function of the session's stored ``seed`` and the item ids (through
BLAKE2b of their ``repr``), never of :mod:`random`, whose algorithms may change between Python
versions. So a session shows the same images in the same places on any machine.

Example
-------
>>> left, right = placement(7, 3, 9)
>>> {left, right} == {3, 9} and placement(7, 9, 3) == (left, right)
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Hashable, Sequence
from typing import TypeVar

#: Whatever the caller ranks (image ids in the app); results hold the same type.
Item = TypeVar("Item", bound=Hashable)


def _key(*parts: object) -> bytes:
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).digest()


def shuffled(items: Sequence[Item], seed: int, salt: str = "order") -> list[Item]:
    """``items`` in a random order determined by ``seed`` (a key sort on a hash).

    >>> shuffled([1, 2, 3, 4], seed=1) == shuffled([4, 3, 2, 1], seed=1)
    True
    """
    return sorted(items, key=lambda item: _key(salt, seed, item))


def presentation_order(
    members: Sequence[Item], seed: int, initial_count: int | None = None
) -> list[Item]:
    """The order a session presents its images in.

    ``members`` is the image set in insertion order; the first ``initial_count`` (the set's size
    when the session was created; all when ``None``) are shuffled by ``seed``, and images added
    later follow them, shuffled among themselves, so adding images never reorders the first ones.
    """
    n = len(members) if initial_count is None else max(0, min(initial_count, len(members)))
    return shuffled(members[:n], seed) + shuffled(members[n:], seed, "added")


def placement(seed: int, a: Item, b: Item) -> tuple[Item, Item]:
    """``(left, right)``: which image of the unordered pair ``{a, b}`` is shown on the left.

    A fair coin per pair, fixed by ``seed``, so the sort's inserted image is not always on one
    side (position bias) and a replay shows a pair exactly as it was shown before.
    """
    lo, hi = (a, b) if repr(a) <= repr(b) else (b, a)
    return (lo, hi) if _key("side", seed, lo, hi)[0] & 1 else (hi, lo)


def exhaustive_schedule(items: Sequence[Item], seed: int) -> list[tuple[Item, Item]]:
    """Every unordered pair once as ``(left, right)``, in a random order fixed by ``seed``.

    >>> len(exhaustive_schedule(range(50), seed=3))
    1225
    """
    items = list(items)
    pairs = [placement(seed, items[i], items[j])
             for i in range(len(items)) for j in range(i + 1, len(items))]
    pairs.sort(key=lambda p: _key("pair", seed, *sorted(p, key=repr)))
    return pairs


def next_unanswered(
    schedule: Sequence[tuple[Item, Item]], answered: Collection[frozenset], start: int = 0
) -> int | None:
    """Index of the first pair in ``schedule[start:]`` whose unordered pair is not in
    ``answered``; ``None`` when every pair is answered."""
    for i in range(start, len(schedule)):
        if frozenset(schedule[i]) not in answered:
            return i
    return None
