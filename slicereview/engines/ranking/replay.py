"""The interruptible sort: replay stored answers until a comparison has no answer.

Only answers are stored, never sort state. :func:`replay` runs an algorithm of
:mod:`slicereview.engines.ranking.algorithms` from the start, answering its comparisons from the
stored answers, and stops at the first comparison without one (:class:`NeedAnswer`) or returns the
finished :class:`Ranking`. :class:`Replayer` does the same but keeps the algorithm suspended at the
open comparison, so that answering *that* comparison costs O(1) instead of a full replay; any other
change (undo, an answer to another pair, new items) falls back to a full replay. Both give the
same result because the algorithms are deterministic.

Answers are a mapping ``(a, b) -> "left" | "right" | "same"``: the image shown left (``a``) or
right (``b``) has *more* of the rated property, or there is no difference. A stored ``(a, b)``
also answers ``(b, a)``. Answers about items not in ``items`` are ignored.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from slicereview.engines.ranking import algorithms as _alg

Item = Hashable

#: Algorithm name -> version. The version is stored with each session; bump it whenever a change
#: would make a stored session ask different comparisons.
ALGORITHMS: dict[str, int] = {
    "timsort": 1,
    "merge-insertion": 1,
    "tie-aware-merge-insertion": 1,
    "top-k": 1,
}

#: The default algorithm. In the benchmark (docs/performance.md, "Ranking") it asks the fewest
#: comparisons for distinct items (the same comparisons as ``"merge-insertion"``, ~1 % above
#: ⌈log2 n!⌉ and below ``"timsort"``) and less than half of them when images share a few
#: severity levels, because an answer "same" merges the two images into one tier for good.
DEFAULT = "tie-aware-merge-insertion"

#: ``k`` of ``"top-k"`` when none is given.
DEFAULT_K = 10

#: Algorithms written as generators that ask their comparisons (``"timsort"`` is replayed by
#: :func:`slicereview.engines.ranking.algorithms.timsort` instead).
_GENERATORS: dict[str, Callable[..., _alg.AlgorithmGen]] = {
    "merge-insertion": _alg.merge_insertion,
    "tie-aware-merge-insertion": _alg.tie_aware_merge_insertion,
    "top-k": _alg.top_k,
}

_VALUE = {"left": 1, "right": -1, "same": 0}


@dataclass(frozen=True)
class NeedAnswer:
    """The next comparison: which of ``pair = (a, b)`` has more of the property?

    ``answered`` counts the distinct stored answers the sort used so far; ``estimated_total``
    is the expected number of comparisons for the whole session (never below ``answered + 1``).
    The order within ``pair`` is the algorithm's; which image is shown left is decided by
    :func:`slicereview.engines.ranking.schedule.placement`.
    """

    pair: tuple[Item, Item]
    answered: int
    estimated_total: int


@dataclass(frozen=True)
class Ranking:
    """A finished sort: ``tiers`` from most to least of the property; items answered "same"
    share a tier where the algorithm groups ties. ``unranked`` holds the items an algorithm was
    not asked to order (``"top-k"``: all but the top ``k``), in presentation order.
    ``answered`` is the number of distinct stored answers used.
    """

    tiers: Sequence[Sequence[Item]]
    unranked: Sequence[Item] = field(default_factory=list)
    answered: int = 0

    @property
    def order(self) -> list[Item]:
        """The ranked items from most to least, tiers flattened."""
        return [item for tier in self.tiers for item in tier]


def algorithm_version(name: str) -> int:
    """The version of algorithm ``name``; ``ValueError`` for an unknown name."""
    try:
        return ALGORITHMS[name]
    except KeyError:
        known = ", ".join(ALGORITHMS)
        raise ValueError(f"unknown ranking algorithm {name!r} (known: {known})") from None


def estimate_comparisons(n: int, algorithm: str = DEFAULT, k: int | None = None) -> int:
    """Expected number of comparisons for ``n`` distinct items.

    Sorts: the Ford–Johnson worst case ``sum(ceil(log2(3 i / 4)))``, within ~1 % of the average
    of all three sorts on distinct items (ties make the tie-aware sort finish earlier). Top-k:
    ``n - 1 + (k - 1) * ceil(log2 n)``.

    >>> estimate_comparisons(50)
    219
    """
    algorithm_version(algorithm)
    if n < 2:
        return 0
    if algorithm == "top-k":
        k = min(n, DEFAULT_K if k is None else k)
        return n - 1 + max(0, k - 1) * math.ceil(math.log2(n))
    return sum(math.ceil(math.log2(3 * i / 4)) for i in range(1, n + 1))


def normalise_answers(answers: Mapping[tuple[Item, Item], str]) -> dict[tuple[Item, Item], int]:
    """``{(a, b): +1 | -1 | 0}`` for both orientations of every stored answer.

    When both ``(a, b)`` and ``(b, a)`` are stored with conflicting answers, the later one in
    ``answers`` wins. Answers of an item against itself are ignored.
    """
    try:
        # Two comprehensions instead of a loop: this runs on every resume and undo.
        direct = {pair: _VALUE[choice] for pair, choice in answers.items()}
    except (KeyError, TypeError):
        return _normalise_slowly(answers)
    reverse = {(b, a): -v for (a, b), v in direct.items()}
    both = direct.keys() & reverse.keys()  # stored in both orientations (or an item twice)
    if any(direct[key] != reverse[key] for key in both):
        return _normalise_slowly(answers)
    reverse.update(direct)
    for a, b in both:
        if a == b:
            del reverse[(a, b)]
    return reverse


def _normalise_slowly(answers: Mapping[tuple[Item, Item], str]) -> dict[tuple[Item, Item], int]:
    """:func:`normalise_answers` one answer at a time (conflicts, errors, non-str choices)."""
    out: dict[tuple[Item, Item], int] = {}
    for (a, b), choice in answers.items():
        if a == b:
            continue
        try:
            v = _VALUE[str(choice)]
        except KeyError:
            raise ValueError(f"answer for {(a, b)!r} must be left, right or same, "
                             f"not {choice!r}") from None
        out[(a, b)] = v
        out[(b, a)] = -v
    return out


class Replayer:
    """An incremental replay over an in-memory answer mapping.

    Example
    -------
    >>> r = Replayer(["a", "b", "c"])
    >>> q = r.result(); q.pair, q.answered
    (('a', 'b'), 0)
    >>> r.add_answer("a", "b", "same")
    >>> r.result().pair
    ('a', 'c')
    >>> r.add_answer("a", "c", "right")
    >>> r.result()
    Ranking(tiers=[['c'], ['a', 'b']], unranked=[], answered=2)
    """

    def __init__(
        self,
        items: Sequence[Item],
        answers: Mapping[tuple[Item, Item], str] | None = None,
        algorithm: str = DEFAULT,
        k: int | None = None,
    ) -> None:
        algorithm_version(algorithm)
        self.items = tuple(items)
        if len(set(self.items)) != len(self.items):
            raise ValueError("items must be distinct")
        self.algorithm = algorithm
        self.k = (DEFAULT_K if k is None else int(k)) if algorithm == "top-k" else k
        if self.k is not None and self.k < 0:
            raise ValueError("k must be >= 0")
        self._known = set(self.items)
        self._values = normalise_answers(answers or {})
        self._estimate = estimate_comparisons(len(self.items), algorithm, self.k)
        self._gen: _alg.AlgorithmGen | None = None
        self._used: set[tuple[Item, Item]] = set()
        self._outcome: NeedAnswer | Ranking | None = None

    # -- answers ---------------------------------------------------------------------------
    def add_answer(self, a: Item, b: Item, choice: str) -> None:
        """Store one answer (``a`` shown left, ``b`` right). Answering the open comparison
        resumes the suspended sort; anything else replays from the start on the next
        :meth:`result`."""
        one = normalise_answers({(a, b): choice})
        old = self._values.get((a, b))
        self._values.update(one)
        if a not in self._known or b not in self._known or old == self._values[(a, b)]:
            return
        outcome = self._outcome
        if (
            old is None and isinstance(outcome, NeedAnswer) and self._gen is not None
            and set(outcome.pair) == {a, b}
        ):
            self._used.update((outcome.pair, outcome.pair[::-1]))
            self._run(self._values[outcome.pair])
        else:
            self._reset()

    def remove_answer(self, a: Item, b: Item) -> None:
        """Forget the answer about ``{a, b}`` (undo); the next :meth:`result` replays."""
        if self._values.pop((a, b), None) is not None:
            self._values.pop((b, a), None)
            if a in self._known and b in self._known:
                self._reset()

    def answer_for(self, a: Item, b: Item) -> int | None:
        """The stored answer as ``+1`` (``a`` more), ``-1`` or ``0``; ``None`` when unanswered."""
        return self._values.get((a, b))

    # -- results ---------------------------------------------------------------------------
    def result(self) -> NeedAnswer | Ranking:
        """The open comparison or the finished ranking."""
        if self._outcome is None:
            self._reset()
            if self.algorithm == "timsort":
                self._replay_sorted()
            else:
                gen = _GENERATORS[self.algorithm](self.items, self.k)
                self._gen, self._used = gen, set()
                self._run(None)
        assert self._outcome is not None
        return self._outcome

    def _replay_sorted(self) -> None:
        """``"timsort"``: ``sorted`` replayed from scratch (it cannot be suspended)."""
        result, pair, answered = _alg.timsort(self.items, self._values)
        if result is None:
            assert pair is not None
            self._outcome = NeedAnswer(
                pair=pair, answered=answered, estimated_total=max(answered + 1, self._estimate)
            )
        else:
            tiers, unranked = result
            self._outcome = Ranking(tiers=tiers, unranked=unranked, answered=answered)

    def _run(self, send: int | None) -> None:
        gen, used = self._gen, self._used
        assert gen is not None
        # The hot loop of every replay: one dict lookup and one resume per stored answer.
        get, resume, seen = self._values.get, gen.send, used.__contains__
        try:
            pair = resume(send)  # type: ignore[arg-type]  # None starts the generator
            while True:
                v = get(pair)
                if v is None:
                    break
                if not seen(pair):
                    used.add(pair)
                    used.add((pair[1], pair[0]))
                pair = resume(v)
        except StopIteration as stop:
            tiers, unranked = stop.value
            self._outcome = Ranking(tiers=tiers, unranked=unranked, answered=len(used) // 2)
            self._gen = None
            return
        answered = len(used) // 2
        self._outcome = NeedAnswer(
            pair=pair, answered=answered, estimated_total=max(answered + 1, self._estimate)
        )

    def _reset(self) -> None:
        if self._gen is not None:
            self._gen.close()
        self._gen = None
        self._outcome = None
        self._used = set()


def replay(
    items: Sequence[Item],
    answers: Mapping[tuple[Item, Item], str],
    algorithm: str = DEFAULT,
    k: int | None = None,
) -> NeedAnswer | Ranking:
    """Replay ``algorithm`` over ``items`` with the stored ``answers``.

    Parameters
    ----------
    items : sequence of hashable ids in presentation order (shuffled once by the session seed).
    answers : mapping ``(a, b) -> "left" | "right" | "same"``; ``(a, b)`` also answers ``(b, a)``.
    algorithm : a name in :data:`ALGORITHMS`; default :data:`DEFAULT`.
    k : for ``"top-k"``, how many items to find and order (default :data:`DEFAULT_K`).

    Returns
    -------
    NeedAnswer for the first comparison without a stored answer, or the finished Ranking.

    Notes
    -----
    The same result as ``Replayer(items, answers, algorithm, k).result()``, faster: it runs on
    every resume and undo. The answers are read where they are stored, one lookup per comparison
    (no normalised copy of every answer, no reversed pairs), and a choice is checked when a
    comparison uses it. When one pair is stored in both orientations, the orientation asked wins
    (a :class:`Replayer` keeps the later one; the store keeps one orientation per pair).

    Example
    -------
    >>> replay([1, 2, 3], {(1, 2): "right", (3, 2): "left"})
    Ranking(tiers=[[3], [2], [1]], unranked=[], answered=2)
    >>> replay([1, 2, 3], {}).pair
    (1, 2)
    """
    if algorithm == "timsort":
        return Replayer(items, answers, algorithm, k).result()
    items = tuple(items)
    r = Replayer(items, {}, algorithm, k)  # validates the arguments
    gen = _GENERATORS[algorithm](items, r.k)
    get, resume = answers.get, gen.send
    used: set[tuple[Item, Item]] = set()  # the stored keys used, so len() counts answers
    try:
        pair = resume(None)  # type: ignore[arg-type]  # None starts the generator
        while True:
            choice = get(pair)
            if choice is not None:
                used.add(pair)
                pair = resume(_choice_value(pair, choice))
                continue
            flipped = (pair[1], pair[0])
            choice = get(flipped)
            if choice is None:
                break
            used.add(flipped)
            pair = resume(-_choice_value(flipped, choice))
    except StopIteration as stop:
        tiers, unranked = stop.value
        return Ranking(tiers=tiers, unranked=unranked, answered=len(used))
    gen.close()
    return NeedAnswer(pair=pair, answered=len(used),
                      estimated_total=max(len(used) + 1, r._estimate))


def _choice_value(pair: tuple[Item, Item], choice: str) -> int:
    """+1, -1 or 0 for a stored choice about ``pair``; ``ValueError`` for anything else."""
    try:
        return _VALUE[choice]
    except (KeyError, TypeError):
        return normalise_answers({pair: choice})[pair]

