"""Which imported files are missing: each folder listed once, names the listing lacks
checked one by one (a link to a file counts as present, a folder of the name does not)."""

from __future__ import annotations

import os

from slicereview.store.images import missing_files


def test_missing_files_by_listing_each_folder(tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        for k in range(5):
            (tmp_path / folder / f"{k}.png").write_bytes(b"x")
    (tmp_path / "a" / "3.png").unlink()
    (tmp_path / "b" / "dir.png").mkdir()  # a folder is not the file
    os.symlink(tmp_path / "a" / "0.png", tmp_path / "b" / "link.png")
    elsewhere = tmp_path / "abs.png"
    elsewhere.write_bytes(b"y")
    stored = [(1, "a/0.png"), (2, "a/3.png"), (3, "b/4.png"), (4, "b/dir.png"),
              (5, "b/link.png"), (6, "gone/1.png"), (7, str(elsewhere)), (8, "a/../b/1.png")]
    assert missing_files(str(tmp_path), stored) == [(2, "a/3.png"), (4, "b/dir.png"),
                                                    (6, "gone/1.png")]
    assert missing_files(str(tmp_path), []) == []
