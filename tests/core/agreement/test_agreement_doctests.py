"""The runnable examples in the agreement and review docstrings give the numbers they show."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest

MODULES = [
    "slicereview.core.agreement.alpha",
    "slicereview.core.agreement.segmentation",
    "slicereview.core.agreement.overlap",
    "slicereview.core.agreement.icc",
    "slicereview.core.agreement.g_study",
    "slicereview.core.agreement.consensus",
    "slicereview.core.agreement.labelstudio",
    "slicereview.core.review.metrics",
    "slicereview.core.review.rankstats",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, extraglobs={"np": np}, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
