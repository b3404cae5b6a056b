"""The runnable examples in the imaging modules' docstrings stay true."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["display", "dicom", "dicom_meta", "errors", "file_checks", "formats", "importer",
           "isolated", "limits", "loader", "raster", "volume"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"slicereview.engines.imaging.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
