"""The runnable examples of the repeats, consensus-export and demo-review modules."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "slicereview.store.repeats",
    "slicereview.app.qa.repeats",
    "slicereview.app.review.queue",
    "slicereview.demo.review",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
