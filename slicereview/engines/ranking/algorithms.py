"""Interruptible comparison sorts, written as generators that *ask* their comparisons.

Every algorithm here is a generator function ``algorithm(items, k)`` that yields a comparison
``(x, y)`` (two items) and is sent back the answer as an ``int``: ``+1`` when ``x`` has *more* of
the rated property, ``-1`` when ``y`` has more, ``0`` for "no difference". When it is done it
returns ``(tiers, unranked)``: ``tiers`` is a list of lists of items from *most* to *least*,
``unranked`` the items it was not asked to order (only ``"top-k"`` leaves any).

Why generators: the replay engine (:mod:`slicereview.engines.ranking.replay`) answers comparisons
from the stored answers until it meets one without an answer, then keeps the generator suspended at
that comparison. The next answer resumes it in O(1) instead of replaying every stored answer
([Jang2022, Algorithm 1] replays from scratch). Because the algorithms use no randomness, no hashing
of items and no library sort with a comparator, a session asks exactly the same comparisons on every
Python version. ``"timsort"`` ([Peters2002]) is the exception by design: it is the published
baseline and runs CPython's own ``sorted`` (whose comparison order changed in 3.11 and 3.13), so a
``"timsort"`` session resumed on another CPython version may ask different comparisons (its stored
answers stay valid and are reused). ``sorted`` cannot be suspended, so ``"timsort"`` is not a
generator but a function that replays ``sorted`` from scratch up to the first comparison without an
answer (see :func:`timsort`).

The tie-aware merge-insertion works on *tie classes*: an answer "same" fuses the two classes, and
a binary insertion stops when it meets a "same". With a perfect rater on a total preorder its
tiers are exactly the levels of the preorder: two classes of equal level that end up adjacent
must have been compared (a comparison sort cannot order two neighbours it never compared), and
that comparison fused them.
"""

from __future__ import annotations

from collections.abc import Generator, Hashable, Mapping, Sequence
from functools import cmp_to_key

Item = Hashable
#: What an algorithm generator yields, is sent and returns.
Pair = tuple[Item, Item]
Result = tuple[list[list[Item]], list[Item]]
AlgorithmGen = Generator[Pair, int, Result]


# -- tie classes -------------------------------------------------------------------------------
class _Class:
    """A set of items answered "same" (directly or through fusions); ``items[0]`` is asked."""

    __slots__ = ("into", "items")

    def __init__(self, item: Item) -> None:
        self.items: list[Item] = [item]
        self.into: _Class | None = None


def _find(c: _Class) -> _Class:
    while c.into is not None:
        c = c.into
    return c


def _fuse(keep: _Class, gone: _Class) -> None:
    keep.items.extend(gone.items)
    gone.items = []
    gone.into = keep


def _jacobsthal_order(m: int) -> list[int]:
    """1-based indices of pending elements in Ford–Johnson insertion order, element 1 excluded.

    Groups end at the Jacobsthal-like numbers 3, 5, 11, 21, 43, ... and are inserted from their
    highest index down, so that each binary search runs over at most ``2**j - 1`` elements.
    """
    order: list[int] = []
    prev, k = 1, 1
    while prev < m:
        t = (2 ** (k + 2) + (-1) ** (k + 1)) // 3
        order.extend(range(min(t, m), prev, -1))
        prev, k = t, k + 1
    return order


def _jacobsthal_groups(m: int) -> list[range]:
    """:func:`_jacobsthal_order` split into its groups (each a descending ``range``)."""
    groups: list[range] = []
    prev, k = 1, 1
    while prev < m:
        t = (2 ** (k + 2) + (-1) ** (k + 1)) // 3
        groups.append(range(min(t, m), prev, -1))
        prev, k = t, k + 1
    return groups


def _merge_insertion(items: Sequence[Item], ties: bool) -> AlgorithmGen:
    """Ford–Johnson merge-insertion [FordJohnson1959] over classes; ``ties`` turns tie classes on.

    With ``ties`` each class is a tier (items in presentation order). Without
    ``ties`` an answer "same" is resolved by presentation order (the item shown earlier in
    ``items`` counts as more), which keeps the comparisons a consistent total order, and is
    remembered so that adjacent items answered "same" can still share a tier afterwards.

    One generator frame, no recursion: the recursive sort of the winners is unrolled into a
    descent that pairs up level by level and an ascent that inserts each level's losers. A
    replay resumes this frame once per comparison, where nested ``yield from`` generators
    resumed one frame per recursion level (the cost of a replay is this per-comparison overhead).
    The public algorithms return this generator itself rather than delegate to it, for the
    same reason.
    """
    index = {item: i for i, item in enumerate(items)}
    same: set[frozenset] = set()
    levels: list[tuple[list[tuple[_Class, _Class]], list[_Class]]] = []
    singles = [_Class(i) for i in items]
    while True:
        # Pair up; a "same" fuses the pair into one class that is paired again next round.
        pairs: list[tuple[_Class, _Class]] = []
        while len(singles) >= 2:
            nxt = []
            for i in range(0, len(singles) - 1, 2):
                x, y = singles[i], singles[i + 1]
                a, b = x.items[0], y.items[0]
                c = yield (a, b)
                if c == 0 and not ties:
                    same.add(frozenset((a, b)))
                    c = 1 if index[a] < index[b] else -1
                if c == 0:
                    _fuse(x, y)
                    nxt.append(x)
                else:
                    pairs.append((x, y) if c > 0 else (y, x))
            if len(singles) % 2:
                nxt.append(singles[-1])
            singles = nxt
        if not pairs:
            break
        levels.append((pairs, singles))
        singles = [w for w, _ in pairs]  # sorted by the next level down
    chain = singles
    while levels:
        pairs, singles = levels.pop()
        position = {id(c): i for i, c in enumerate(chain)}
        # Losers in the order of their winners along the chain (a stable key sort).
        by_winner = sorted(
            ((loser, winner) for winner, loser in pairs),
            key=lambda lw: position[id(_find(lw[1]))],
        )
        pending: list[tuple[_Class, _Class | None]] = list(by_winner)
        if singles:
            pending.append((singles[0], None))
        chain.insert(0, pending[0][0])  # below the least winner: no comparison needed
        # A winner moves right by the losers inserted before it: all those of earlier groups
        # (their winners precede it) and some of its own group, so search only that window.
        earlier = 1  # pending[0]
        for group in _jacobsthal_groups(len(pending)):
            inserted = 0
            for i in group:
                new, winner = pending[i - 1]
                if winner is None:
                    hi = len(chain)
                else:
                    w = _find(winner)
                    start = position[id(w)] + earlier
                    hi = chain.index(w, start, start + inserted + 1)
                lo = 0
                a = new.items[0]
                while lo < hi:  # binary insertion; stops at a "same" (fusion)
                    mid = (lo + hi) // 2
                    b = chain[mid].items[0]
                    c = yield (a, b)
                    if c == 0 and not ties:
                        same.add(frozenset((a, b)))
                        c = 1 if index[a] < index[b] else -1
                    if c == 0:
                        _fuse(chain[mid], new)
                        break
                    if c > 0:
                        lo = mid + 1
                    else:
                        hi = mid
                else:
                    chain.insert(lo, new)
                    inserted += 1
            earlier += inserted
    if ties:
        return [sorted(c.items, key=index.__getitem__) for c in reversed(chain)], []
    return _join_same([c.items[0] for c in reversed(chain)], same), []


def _join_same(order: Sequence[Item], same: set[frozenset]) -> list[list[Item]]:
    """Tiers from a strict order: neighbours answered "same" share a tier."""
    tiers: list[list[Item]] = []
    for item in order:
        if tiers and frozenset((tiers[-1][-1], item)) in same:
            tiers[-1].append(item)
        else:
            tiers.append([item])
    return tiers


def merge_insertion(items: Sequence[Item], k: int | None = None) -> AlgorithmGen:
    """Ford–Johnson merge-insertion (``"merge-insertion"``); ``k`` is ignored."""
    return _merge_insertion(items, ties=False)


def tie_aware_merge_insertion(items: Sequence[Item], k: int | None = None) -> AlgorithmGen:
    """Ford–Johnson over tie classes (``"tie-aware-merge-insertion"``); ``k`` is ignored."""
    return _merge_insertion(items, ties=True)


def top_k(items: Sequence[Item], k: int | None = None) -> AlgorithmGen:
    """Tournament tree (``"top-k"``, [Knuth1998, §5.3.3]): the ``k`` items with the most of the
    property, in order.

    A knockout over all items (``n - 1`` comparisons) finds the first; each further one replays
    only the matches on the previous winner's path (about ``log2 n`` comparisons). "Same" is
    resolved by presentation order and remembered for tiers, as in plain merge-insertion.
    """
    n = len(items)
    k = n if k is None else max(0, min(int(k), n))
    index = {item: i for i, item in enumerate(items)}
    same: set[frozenset] = set()

    def better(a: Item | None, b: Item | None) -> Generator[Pair, int, Item | None]:
        if a is None or b is None:
            return b if a is None else a
        c = yield (a, b)
        if c == 0:
            same.add(frozenset((a, b)))
            c = 1 if index[a] < index[b] else -1
        return a if c > 0 else b

    levels: list[list[Item | None]] = [list(items)]
    while len(levels[-1]) > 1:
        prev = levels[-1]
        nxt = []
        for i in range(0, len(prev), 2):
            nxt.append((yield from better(prev[i], prev[i + 1] if i + 1 < len(prev) else None)))
        levels.append(nxt)
    winners: list[Item] = []
    while len(winners) < k:
        champion = levels[-1][0]
        winners.append(champion)
        if len(winners) == k:
            break
        p = index[champion]
        levels[0][p] = None
        for j in range(1, len(levels)):
            below = levels[j - 1]
            left = below[2 * (p // 2)]
            right = below[2 * (p // 2) + 1] if 2 * (p // 2) + 1 < len(below) else None
            p //= 2
            levels[j][p] = yield from better(left, right)
    chosen = set(winners)
    return _join_same(winners, same), [i for i in items if i not in chosen]


class _Unanswered(Exception):
    """Stops ``sorted`` in :func:`timsort` at the first pair without a stored answer."""

    def __init__(self, pair: Pair) -> None:
        super().__init__(pair)
        self.pair = pair


def timsort(
    items: Sequence[Item], values: Mapping[Pair, int],
) -> tuple[Result | None, Pair | None, int]:
    """CPython's ``sorted`` with the stored answers as comparator (``"timsort"``, [Jang2022]'s
    baseline): ``(result, None, answered)`` when every comparison it asks has an answer in
    ``values`` (``{(x, y): +1 | -1 | 0}``, both orientations), else ``(None, pair, answered)``
    with the first comparison without one. ``answered`` counts the distinct answers used.

    Not a generator: ``sorted`` cannot be suspended. It reproduces a suspended sort by replay:
    ``sorted`` is deterministic, so running it from scratch with the answers known so far asks
    exactly the pairs a sort suspended at each comparison would have asked, in the same
    order, and the comparator stops it (by raising) at the first comparison without an answer.
    Each new answer therefore costs a replay from scratch, as [Jang2022, Algorithm 1] does.
    Ties keep presentation order (``sorted`` is stable); neighbours answered "same" share a
    tier. The comparison order is CPython's and differs between versions (3.11, 3.13).
    """
    get = values.get
    used: set[Pair] = set()
    same: set[frozenset] = set()

    def comparator(x: Item, y: Item) -> int:
        pair = (x, y)
        c = get(pair)
        if c is None:
            raise _Unanswered(pair)
        if pair not in used:
            used.add(pair)
            used.add((y, x))
        if c == 0:
            same.add(frozenset(pair))
        return -c  # sorted() puts the lesser first; we want the most first

    try:
        order = sorted(items, key=cmp_to_key(comparator))
    except _Unanswered as stop:
        return None, stop.pair, len(used) // 2
    return (_join_same(order, same), []), None, len(used) // 2
