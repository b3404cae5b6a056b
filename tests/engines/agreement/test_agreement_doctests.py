"""The runnable examples in the agreement and review docstrings give the numbers they show."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest

MODULES = [
    "slicereview.engines.agreement.alpha",
    "slicereview.engines.agreement.segmentation",
    "slicereview.engines.agreement.overlap",
    "slicereview.engines.agreement.icc",
    "slicereview.engines.agreement.g_study",
    "slicereview.engines.agreement.consensus",
    "slicereview.engines.agreement.consensus_masks",
    "slicereview.engines.agreement.staple_em",
    "slicereview.engines.agreement.labelstudio",
    "slicereview.engines.review.metrics",
    "slicereview.engines.review.rankstats",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, extraglobs={"np": np}, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
