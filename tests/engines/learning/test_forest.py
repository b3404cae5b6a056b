"""The forest as checked arrays: the same probabilities as scikit-learn's, and arrays that are
not trees are refused before anything walks them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from slicereview.engines.learning import Settings
from slicereview.engines.learning.forest import Forest, check_forest, fit_forest
from slicereview.engines.prediction import Cancelled


def _data(n=3000, features=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, features), dtype=np.float32)
    y = ((X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.random(n)) > 1.0).astype(np.uint8)
    return X, y


def test_probabilities_equal_scikit_learns():
    from sklearn.ensemble import RandomForestClassifier

    X, y = _data()
    settings = Settings(trees=12, max_depth=8, min_samples_leaf=3, seed=4)
    forest = fit_forest(X, y, settings, workers=2)
    oracle = RandomForestClassifier(n_estimators=12, max_depth=8, min_samples_leaf=3,
                                    max_features="sqrt", random_state=4).fit(X, y)
    test = np.random.default_rng(9).random((20_000, 6), dtype=np.float32)
    expected = oracle.predict_proba(test)[:, 1]
    np.testing.assert_allclose(forest.predict(test), expected, atol=1e-6)
    np.testing.assert_allclose(forest.predict(test, workers=2), expected, atol=1e-6)
    assert forest.tree_count == 12 and forest.predict(test).dtype == np.float32


def test_growing_is_cancelled_between_steps_and_reports_trees():
    X, y = _data(500)
    grown = []
    forest = fit_forest(X, y, Settings(trees=10, max_depth=3), grown=lambda d, t: grown.append(d))
    assert grown == [4, 8, 10] and forest.tree_count == 10
    with pytest.raises(Cancelled):
        fit_forest(X, y, Settings(trees=10, max_depth=3), cancelled=lambda: len(grown) > 3,
                   grown=lambda d, t: grown.append(d))


def test_both_classes_are_needed():
    X, _ = _data(100)
    with pytest.raises(ValueError, match="both"):
        fit_forest(X, np.ones(100, np.uint8), Settings(trees=2))


def _small_forest() -> Forest:
    X, y = _data(400, features=3)
    return fit_forest(X, y, Settings(trees=3, max_depth=4))


def _changed(forest: Forest, **arrays) -> Forest:
    return dataclasses.replace(forest, **arrays, _trees=[])


def test_the_fitted_forest_passes_its_checks():
    check_forest(_small_forest())


@pytest.mark.parametrize("damage", ["backwards", "outside", "one child", "feature", "nan",
                                    "value", "offsets", "empty tree", "length"])
def test_arrays_that_are_not_trees_are_refused(damage):
    forest = _small_forest()
    left, right = forest.left.copy(), forest.right.copy()
    inner = int(np.flatnonzero(left != -1)[1])
    changes: dict = {}
    if damage == "backwards":  # a cycle: a child pointing at its parent
        left[inner] = inner
        changes = {"left": left}
    elif damage == "outside":
        right[inner] = forest.offsets[1] + 5  # into the next tree
        changes = {"right": right}
    elif damage == "one child":
        leaf = int(np.flatnonzero(left == -1)[0])
        left[leaf] = leaf + 1
        changes = {"left": left}
    elif damage == "feature":
        feature = forest.feature.copy()
        feature[inner] = 3
        changes = {"feature": feature}
    elif damage == "nan":
        threshold = forest.threshold.copy()
        threshold[inner] = np.nan
        changes = {"threshold": threshold}
    elif damage == "value":
        value = forest.value.copy()
        value[0] = 1.5
        changes = {"value": value}
    elif damage == "offsets":
        changes = {"offsets": forest.offsets + 1}
    elif damage == "empty tree":
        offsets = forest.offsets.copy()
        offsets[1] = offsets[0]
        changes = {"offsets": offsets}
    elif damage == "length":
        changes = {"value": forest.value[:-1]}
    with pytest.raises(ValueError):
        check_forest(_changed(forest, **changes))


def test_the_wrong_number_of_features_is_refused_at_prediction():
    with pytest.raises(ValueError, match="features"):
        _small_forest().predict(np.zeros((5, 4), np.float32))
