"""Unreadable PNG/TIFF/JPEG files are reported in one readable line."""

from __future__ import annotations

from pathlib import Path

import pytest

from slicereview.engines.imaging.errors import UnreadableImageError
from slicereview.engines.imaging.raster import read_array


@pytest.mark.parametrize("name", ["junk.png", "junk.tif", "junk.jpg"])
def test_unreadable_raster_message_is_one_line_without_library_internals(
    tmp_path: Path, name: str
) -> None:
    path = tmp_path / name
    path.write_bytes(b"not an image at all")
    with pytest.raises(UnreadableImageError) as info:
        read_array(path)
    message = str(info.value)
    assert message.startswith(f"cannot read {name}:")
    assert "\n" not in message
    assert ".cxx" not in message and "/src/" not in message  # no C++ source locations
