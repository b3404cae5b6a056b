"""A Unix socket's URL is printed as a URL (issue 31: ``copy`` printed ``postgresql:/db?host=…``,
so the ``slicereview hold postgresql:/…`` it suggests was read as a file path)."""

from __future__ import annotations

import pytest

from slicereview.store.location import as_location, describe, is_server


@pytest.mark.parametrize("url, shown", [
    ("postgresql:///study?host=/var/run/postgresql", "postgresql:///study?host=/var/run/postgresql"),
    ("postgresql://anna:secret@/study?host=/tmp/s&password=x", "postgresql://anna@/study?host=/tmp/s"),
    ("postgres://anna@db.example.org:5432/study", "postgres://anna@db.example.org:5432/study"),
])
def test_a_printed_location_is_read_back_as_the_same_server(url: str, shown: str) -> None:
    assert describe(url) == shown
    assert is_server(shown) and as_location(shown) == shown  # what `hold`, `open`... read
    assert describe(shown) == shown
