"""The project model's random forest [Breiman2001] as plain arrays, and its prediction.

scikit-learn (BSD) grows the forest (``RandomForestClassifier``: bootstrap samples, √features
tried per split, Gini impurity). What is kept is only what predicting needs, as arrays of
fixed types — for every node of every tree its two children, its feature, its threshold and
its leaf value (the fraction of region samples that reached it) — so a stored model is data,
never code (:mod:`.persist`). :func:`check_forest` proves the arrays describe trees before
anything reads them: children always point forward inside their own tree (so every path ends
at a leaf), features are within the feature count, thresholds and values finite.

Prediction walks each tree with scikit-learn's own compiled tree (``Tree.apply``, rebuilt from
the checked arrays; it releases the GIL, so trees run in ``workers`` threads) and averages the
leaf values over the trees: the same number ``RandomForestClassifier.predict_proba`` gives for
the region class (tested).

>>> import numpy as np
>>> from slicereview.engines.learning.settings import Settings
>>> rng = np.random.default_rng(0)
>>> X = rng.random((400, 3), dtype=np.float32); y = (X[:, 0] > 0.5).astype(np.uint8)
>>> forest = fit_forest(X, y, Settings(trees=5, max_depth=3))
>>> p = forest.predict(np.array([[0.9, 0.5, 0.5], [0.1, 0.5, 0.5]], np.float32))
>>> bool(p[0] > 0.8), bool(p[1] < 0.2)
(True, True)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from slicereview.engines.learning.settings import Settings
from slicereview.engines.prediction import CancelCheck, check

#: A leaf's children (scikit-learn's ``TREE_LEAF``).
LEAF = -1
#: Trees grown between two looks at ``cancelled()``.
TREES_PER_STEP = 4


@dataclass(frozen=True, eq=False)
class Forest:
    """Trees as arrays; tree ``t``'s nodes are ``offsets[t]:offsets[t + 1]``, its root first.

    Attributes
    ----------
    n_features : int
    offsets : int64 (T + 1,)
    left, right : int32 (N,)
        Children, as node indices within the tree; :data:`LEAF` for both at a leaf.
    feature : int32 (N,)
        The feature a split compares (ignored at leaves).
    threshold : float64 (N,)
        Samples with ``x[feature] <= threshold`` go left.
    value : float32 (N,)
        The region fraction of the training samples at the node (what a leaf predicts).
    """

    n_features: int
    offsets: np.ndarray
    left: np.ndarray
    right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    value: np.ndarray
    _trees: list[Any] = field(default_factory=list, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def tree_count(self) -> int:
        return len(self.offsets) - 1

    def predict(self, X: np.ndarray, workers: int = 1) -> np.ndarray:
        """``float32 (n,)``: the region probability of samples ``X`` ``float32 (n,
        n_features)``, the mean of the trees' leaf values."""
        X = np.ascontiguousarray(X, dtype=np.float32)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"the forest takes (n, {self.n_features}) features, got "
                             f"{X.shape}")
        trees = self._sklearn_trees()
        total = np.zeros(len(X), np.float64)
        lock = threading.Lock()

        def one(t: int) -> None:
            leaves = trees[t].apply(X)
            values = self.value[self.offsets[t]:self.offsets[t + 1]][leaves]
            with lock:
                total[:] += values

        if workers > 1 and len(X) > 10_000:
            with ThreadPoolExecutor(workers) as pool:
                list(pool.map(one, range(self.tree_count)))
        else:
            for t in range(self.tree_count):
                one(t)
        return (total / self.tree_count).astype(np.float32)

    def _sklearn_trees(self) -> list[Any]:
        with self._lock:
            if not self._trees:
                self._trees.extend(_sklearn_tree(self, t) for t in range(self.tree_count))
            return self._trees


def _sklearn_tree(forest: Forest, t: int) -> Any:
    """scikit-learn's compiled tree ``t`` of a checked forest (its pickling state, filled
    from our arrays by field name)."""
    from sklearn.tree._tree import NODE_DTYPE, Tree

    a, b = int(forest.offsets[t]), int(forest.offsets[t + 1])
    n = b - a
    nodes = np.zeros(n, dtype=NODE_DTYPE)
    nodes["left_child"] = forest.left[a:b]
    nodes["right_child"] = forest.right[a:b]
    leaf = forest.left[a:b] == LEAF
    nodes["feature"] = np.where(leaf, -2, forest.feature[a:b])
    nodes["threshold"] = np.where(leaf, -2.0, forest.threshold[a:b])
    nodes["n_node_samples"] = 1
    nodes["weighted_n_node_samples"] = 1.0
    values = np.zeros((n, 1, 2), np.float64)
    values[:, 0, 1] = forest.value[a:b]
    values[:, 0, 0] = 1.0 - values[:, 0, 1]
    tree = Tree(forest.n_features, np.array([2], dtype=np.intp), 1)
    tree.__setstate__({"max_depth": _depth(forest.left[a:b], forest.right[a:b]),
                       "node_count": n, "nodes": nodes, "values": values})
    return tree


def _depth(left: np.ndarray, right: np.ndarray) -> int:
    depth = np.zeros(len(left), np.int64)
    for i in range(len(left)):  # children come after their parent (checked)
        if left[i] != LEAF:
            depth[left[i]] = depth[right[i]] = depth[i] + 1
    return int(depth.max()) if len(depth) else 0


def check_forest(forest: Forest) -> None:
    """Raise ``ValueError`` unless the arrays describe a forest :meth:`Forest.predict` can
    walk safely (see the module text)."""
    offsets = forest.offsets
    n = len(forest.left)
    if forest.n_features < 1:
        raise ValueError("a forest needs at least one feature")
    if offsets.ndim != 1 or len(offsets) < 2 or offsets[0] != 0 or offsets[-1] != n:
        raise ValueError("the forest's tree offsets do not cover its nodes")
    sizes = np.diff(offsets)
    if (sizes < 1).any():
        raise ValueError("the forest has an empty tree")
    for name in ("right", "feature", "threshold", "value"):
        if getattr(forest, name).shape != (n,):
            raise ValueError(f"the forest's {name} array does not match its nodes")
    local = np.arange(n) - np.repeat(offsets[:-1], sizes)  # each node's index in its tree
    size = np.repeat(sizes, sizes)
    leaf = forest.left == LEAF
    if not np.array_equal(leaf, forest.right == LEAF):
        raise ValueError("a node of the forest has one child")
    inner = ~leaf
    for child in (forest.left, forest.right):
        if not ((child[inner] > local[inner]) & (child[inner] < size[inner])).all():
            raise ValueError("a node of the forest points outside its tree or backwards")
    if not ((forest.feature[inner] >= 0) & (forest.feature[inner] < forest.n_features)).all():
        raise ValueError("a node of the forest splits on a feature it does not have")
    if not np.isfinite(forest.threshold[inner]).all():
        raise ValueError("a threshold of the forest is not finite")
    if not (np.isfinite(forest.value) & (forest.value >= 0) & (forest.value <= 1)).all():
        raise ValueError("a leaf value of the forest is outside [0, 1]")


def fit_forest(X: np.ndarray, y: np.ndarray, settings: Settings, *, workers: int = 1,
               cancelled: CancelCheck | None = None,
               grown: Callable[[int, int], None] | None = None) -> Forest:
    """Grow the forest on samples ``X`` ``float32 (n, F)`` with labels ``y`` (1 region, 0
    background), ``settings.trees`` trees, :data:`TREES_PER_STEP` at a time (``cancelled()``
    is asked between; ``grown(done, total)`` reports trees). Both classes must be present."""
    from sklearn.ensemble import RandomForestClassifier

    y = np.asarray(y).astype(np.int64)
    if not (y == 1).any() or not (y == 0).any():
        raise ValueError("the forest needs samples of both the region and the background")
    model = RandomForestClassifier(
        n_estimators=0, max_depth=settings.max_depth,
        min_samples_leaf=settings.min_samples_leaf, max_features="sqrt", bootstrap=True,
        n_jobs=workers, random_state=settings.seed, warm_start=True)
    while model.n_estimators < settings.trees:
        check(cancelled)
        model.n_estimators = min(settings.trees, model.n_estimators + TREES_PER_STEP)
        model.fit(X, y)
        if grown is not None:
            grown(model.n_estimators, settings.trees)
    return forest_from_sklearn(model, X.shape[1])


def forest_from_sklearn(model: Any, n_features: int) -> Forest:
    """Our arrays of a fitted two-class ``RandomForestClassifier`` (classes 0 and 1)."""
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("left", "right", "feature",
                                                          "threshold", "value")}
    offsets = [0]
    column = list(model.classes_).index(1)
    for estimator in model.estimators_:
        tree = estimator.tree_
        parts["left"].append(tree.children_left.astype(np.int32))
        parts["right"].append(tree.children_right.astype(np.int32))
        parts["feature"].append(np.maximum(tree.feature, 0).astype(np.int32))
        parts["threshold"].append(tree.threshold.astype(np.float64))
        value = tree.value[:, 0, :]
        parts["value"].append((value[:, column] / value.sum(axis=1)).astype(np.float32))
        offsets.append(offsets[-1] + tree.node_count)
    joined = {k: np.concatenate(v) for k, v in parts.items()}
    forest = Forest(n_features, np.array(offsets, np.int64), joined["left"], joined["right"],
                    joined["feature"], joined["threshold"], joined["value"])
    check_forest(forest)
    return forest
