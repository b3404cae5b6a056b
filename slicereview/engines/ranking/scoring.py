"""Scores from pairwise answers and grades, and tiers and ranks from scores.

* :func:`win_loss_scores` — [Jang2022]'s counting score for exhaustive sessions: +1 for a win,
  -1 for a loss, 0 for "same". Only meaningful when every pair was asked once (exhaustive); the
  pairs a sort chooses are biased, so never count wins of sort sessions.
* :func:`bradley_terry` — Bradley–Terry [BradleyTerry1952] log-strengths: the MAP of
  ``choix.opt_pairwise``'s [Choix] objective with a light L2 penalty (``alpha``), which keeps the
  fit finite on the sparse, perfectly consistent data a sort produces (an unpenalised fit exists
  only under the condition of [Hunter2004], which such data violate); a "same" counts as half a
  win each way (:mod:`slicereview.engines.ranking.bt`, which also gives standard errors).
  Several answer mappings (passes, raters) are simply pooled: this is how several sort passes
  or raters are combined.
* :func:`tiers_from_scores` / :func:`competition_ranks` — equal scores share a tier and a rank.
* :data:`DEFAULT_LABELS` — the default ordinal grades of classify sessions; a grade is stored as
  its 0-based index (higher = more of the property).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

from slicereview.engines.ranking.bt import BT_ALPHA, fit, outcomes

#: Whatever the caller ranks (image ids in the app); results hold the same type.
Item = TypeVar("Item", bound=Hashable)

#: Default labels of classify sessions, grade 0 .. 3 (keys 1 .. 4).
DEFAULT_LABELS: tuple[str, ...] = ("none", "mild", "moderate", "severe")

def _outcomes(answers: Mapping[tuple[Item, Item], str]) -> Iterable[tuple[Item, Item, str]]:
    for (a, b), choice in answers.items():
        yield a, b, str(choice)


def win_loss_scores(
    items: Sequence[Item], answers: Mapping[tuple[Item, Item], str]
) -> dict[Item, int]:
    """+1 per win, -1 per loss, 0 per "same" (answers about other items are ignored).

    >>> win_loss_scores(["a", "b", "c"], {("a", "b"): "left", ("b", "c"): "same"})
    {'a': 1, 'b': -1, 'c': 0}
    """
    scores = {item: 0 for item in items}
    for a, b, choice in _outcomes(answers):
        if a not in scores or b not in scores or choice == "same":
            continue
        winner, loser = (a, b) if choice == "left" else (b, a)
        scores[winner] += 1
        scores[loser] -= 1
    return scores


def bradley_terry(
    items: Sequence[Item],
    answer_maps: Iterable[Mapping[tuple[Item, Item], str]],
    alpha: float = BT_ALPHA,
) -> dict[Item, float]:
    """Bradley–Terry log-strengths (mean 0; higher = more of the property): the scores of
    :func:`slicereview.engines.ranking.bt.fit` (standard errors there).

    Parameters
    ----------
    items : the items to score; answers about other items are ignored.
    answer_maps : one or more ``(left, right) -> "left" | "right" | "same"`` mappings, pooled.
    alpha : L2 penalty; items never compared get 0.

    Returns
    -------
    ``{item: float}``; all 0.0 when there are fewer than two items or no usable answers.

    >>> s = bradley_terry([1, 2, 3], [{(1, 2): "left", (2, 3): "left"}])
    >>> s[1] > s[2] > s[3]
    True
    """
    return fit(items, outcomes(answer_maps), alpha).scores


def tiers_from_scores(
    scores: Mapping[Item, float], order: Sequence[Item] | None = None
) -> list[list[Item]]:
    """Tiers from most to least: equal scores share a tier (kept in ``order``, default the
    mapping's order).

    >>> tiers_from_scores({"a": 1, "b": 3, "c": 1})
    [['b'], ['a', 'c']]
    """
    order = list(scores) if order is None else list(order)
    position = {item: i for i, item in enumerate(order)}
    ranked = sorted(order, key=lambda item: (-scores[item], position[item]))
    tiers: list[list[Item]] = []
    for item in ranked:
        if tiers and scores[tiers[-1][0]] == scores[item]:
            tiers[-1].append(item)
        else:
            tiers.append([item])
    return tiers


def competition_ranks(tiers: Sequence[Sequence[Item]]) -> dict[Item, int]:
    """Rank 1 for the first tier; a tier's rank is 1 + the number of items above it ("1224").

    >>> competition_ranks([["b"], ["a", "c"], ["d"]])
    {'b': 1, 'a': 2, 'c': 2, 'd': 4}
    """
    ranks: dict[Item, int] = {}
    above = 0
    for tier in tiers:
        for item in tier:
            ranks[item] = above + 1
        above += len(tier)
    return ranks


def grade_tiers(
    grades: Mapping[Item, float], order: Sequence[Item] | None = None
) -> list[list[Item]]:
    """Tiers of a classify session: highest grade first; equal grades share a tier."""
    return tiers_from_scores({k: float(v) for k, v in grades.items()}, order)
