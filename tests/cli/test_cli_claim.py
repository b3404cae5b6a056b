"""``slicereview batch --per-image K`` and ``slicereview claim``: annotators ask for work
and are handed images until each has its K annotators."""

from __future__ import annotations

import numpy as np

from slicereview.launcher import main


def test_batch_per_image_and_claim(location, tmp_path, capsys):
    from skimage import io

    where = str(location())
    folder = tmp_path / "imgs"
    folder.mkdir()
    for k in range(2):
        io.imsave(folder / f"{k}.png", np.full((4, 5), k, np.uint8), check_contrast=False)
    assert main(["import", where, str(folder), "--create"]) == 0
    for name in ("ann", "bob"):
        assert main(["people", "add", where, name]) == 0
    assert main(["batch", where, "b", "--phase", "formal", "--cases", "C000001,C000002",
                 "--annotators", "ann,bob", "--per-image", "1"]) == 0
    capsys.readouterr()
    assert main(["claim", where, "--batch", "b", "--annotator", "ann"]) == 0
    assert capsys.readouterr().out.startswith("C000001\t")
    assert main(["claim", where, "--batch", "b", "--annotator", "ann"]) == 0  # not finished
    assert capsys.readouterr().out.startswith("C000001\t")
    assert main(["claim", where, "--batch", "b", "--annotator", "bob"]) == 0
    assert capsys.readouterr().out.startswith("C000002\t")
    assert main(["claim", where, "--batch", "b", "--annotator", "nobody"]) != 0
    assert "no rater named 'nobody'" in capsys.readouterr().err
