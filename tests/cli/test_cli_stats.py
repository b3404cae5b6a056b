"""`slicereview stats ...` on small CSV files and mask images."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from slicereview.engines.agreement import (
    intraclass_correlation,
    krippendorff_alpha,
    segmentation_agreement,
)
from slicereview.launcher import main

KRIPP = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]
SF = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys, *argv) -> dict:
    code, out, err = _run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def _cell(v) -> str:
    return "" if v is None else str(v)


def test_alpha_with_header_names_and_empty_cells(tmp_path, capsys):
    path = tmp_path / "data.csv"
    header = "rater," + ",".join(f"u{i}" for i in range(1, 13))
    rows = [f"{name}," + ",".join(_cell(v) for v in row)
            for name, row in zip("ABCD", KRIPP, strict=True)]
    path.write_text("\n".join([header, *rows]) + "\n")
    for level, expected in (("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)):
        payload = _json(capsys, "stats", "alpha", str(path), "--level", level)
        assert payload["alpha"] == pytest.approx(expected, abs=5e-4)
        assert payload["raters"] == 4 and payload["units"] == 12
    code, out, _ = _run(capsys, "stats", "alpha", str(path), "--level", "ordinal")
    assert code == 0 and "Krippendorff's alpha (ordinal): 0.815" in out


def test_alpha_plain_numbers_transposed_and_na_tokens(tmp_path, capsys):
    path = tmp_path / "units.csv"
    data = np.array([[np.nan if v is None else v for v in row] for row in KRIPP], dtype=float)
    lines = [";".join("NA" if np.isnan(v) else f"{v:g}" for v in unit) for unit in data.T]
    path.write_text("\n".join(lines) + "\n")
    payload = _json(capsys, "stats", "alpha", str(path), "--units-in-rows")
    assert payload["alpha"] == pytest.approx(krippendorff_alpha(data), rel=1e-12)


def test_alpha_nominal_text_categories(tmp_path, capsys):
    path = tmp_path / "text.csv"
    path.write_text("yes,no,yes,maybe\nyes,no,no,maybe\n")
    payload = _json(capsys, "stats", "alpha", str(path), "--no-header", "--no-names")
    assert payload["alpha"] == pytest.approx(
        krippendorff_alpha([[0, 1, 0, 2], [0, 1, 1, 2]]), rel=1e-12)
    code, _, err = _run(capsys, "stats", "alpha", str(path), "--no-header", "--no-names",
                        "--level", "interval")
    assert code == 2 and "not a number" in err and "line 1, column 1" in err


def test_icc(tmp_path, capsys):
    path = tmp_path / "ratings.csv"
    path.write_text("image,J1,J2,J3,J4\n" + "\n".join(
        f"img{i}," + ",".join(map(str, row)) for i, row in enumerate(SF)) + "\n")
    payload = _json(capsys, "stats", "icc", str(path))
    forms = {f["form"]: f for f in payload["forms"]}
    assert forms["ICC(2,1)"]["icc"] == pytest.approx(0.29, abs=0.005)
    assert forms["ICC(3,k)"]["icc"] == pytest.approx(0.91, abs=0.005)
    assert payload["targets"] == 6 and payload["raters"] == 4
    code, out, _ = _run(capsys, "stats", "icc", str(path))
    assert code == 0 and "ICC(2,k)" in out and "0.6201" in out


def test_icc_missing_cells(tmp_path, capsys):
    path = tmp_path / "ratings.csv"
    path.write_text("1,2,3\n2,,3\n3,3,4\n4,5,5\n")
    code, _, err = _run(capsys, "stats", "icc", str(path))
    assert code == 2 and "missing" in err
    payload = _json(capsys, "stats", "icc", str(path), "--omit-missing")
    expected = intraclass_correlation([[1, 2, 3], [3, 3, 4], [4, 5, 5]]).icc21
    assert payload["targets"] == 3
    assert payload["forms"][1]["icc"] == pytest.approx(expected)


def test_gcoef_long_format(tmp_path, capsys):
    path = tmp_path / "long.csv"
    rows = [f"t{i},j{j},{SF[i][j]}" for i in range(6) for j in range(4)]
    path.write_text("item,annotator,score\n" + "\n".join(rows) + "\n")
    payload = _json(capsys, "stats", "gcoef", str(path), "--target", "0.7", "0.9")
    assert payload["icc21"] == pytest.approx(intraclass_correlation(SF).icc21)
    assert payload["annotators_needed"] == {"0.7": 6, "0.9": 23}


def test_masks_and_labels_from_png(tmp_path, capsys):
    import skimage.io

    rng = np.random.default_rng(0)
    labels = np.zeros((3, 40, 50), np.uint8)
    for a in range(3):
        labels[a, 5 + a:15, 5:20] = 1
        labels[a, 25:35, 30:40 + a] = 2 if a else 1
    paths = []
    for a in range(3):
        p = tmp_path / f"ann{a}.png"
        skimage.io.imsave(p, labels[a], check_contrast=False)
        paths.append(str(p))
    expected = segmentation_agreement(labels)
    payload = _json(capsys, "stats", "masks", *paths, "--labels")
    assert payload["strict"]["alpha"] == pytest.approx(expected.strict.alpha)
    assert payload["relaxed"]["alpha"] == pytest.approx(expected.relaxed.alpha)
    assert len(payload["relaxed"]["boxes"]) == expected.relaxed.n_boxes == 2
    plain = _json(capsys, "stats", "masks", *paths)
    assert plain["alpha"] == pytest.approx(expected.relaxed.alpha)
    code, out, _ = _run(capsys, "stats", "masks", *paths, "--labels")
    assert code == 0 and "alpha (nominal, strict)" in out and "box rows" in out
    mask255 = tmp_path / "m.png"
    skimage.io.imsave(mask255, (labels[0] > 0).astype(np.uint8) * 255, check_contrast=False)
    overlap = _json(capsys, "stats", "dice", str(mask255), paths[0])
    assert overlap["dice"] == 1.0 and overlap["iou"] == 1.0
    small = tmp_path / "small.png"
    skimage.io.imsave(small, rng.integers(0, 2, (4, 4)).astype(np.uint8), check_contrast=False)
    code, _, err = _run(capsys, "stats", "dice", str(small), paths[0])
    assert code == 2 and "differ in size" in err


def test_ndcg_and_rank(tmp_path, capsys):
    path = tmp_path / "ranked.csv"
    path.write_text("item,grade\n" + "\n".join(
        f"d{i},{g}" for i, g in enumerate([3, 2, 3, 0, 1, 2])) + "\n")
    payload = _json(capsys, "stats", "ndcg", str(path), "--k", "3", "6")
    assert payload["at_k"][0]["ndcg"] == pytest.approx(0.977781, abs=1e-6)
    assert payload["at_k"][1]["ndcg"] == pytest.approx(0.960808, abs=1e-6)
    assert payload["at_k"][0]["precision"] == 1.0

    scores = tmp_path / "scores.csv"
    x = [1, 2, 2, 3, 4, 4, 4, 5]
    y = [2, 1, 3, 3, 5, 4, 4, 6]
    scores.write_text("item,a,b\n" + "\n".join(
        f"img{i},{a},{b}" for i, (a, b) in enumerate(zip(x, y, strict=True))) + "\nimg9,3,\n")
    payload = _json(capsys, "stats", "rank", str(scores), "--n", "2", "3")
    assert payload["kendall_tau_b"] == pytest.approx(0.8406728074767076, abs=1e-12)
    assert payload["items"] == 8 and payload["dropped_incomplete"] == 1
    assert set(payload["top_n"]) == {"2", "3"}


def test_missing_file_is_one_line_error(tmp_path, capsys):
    code, _, err = _run(capsys, "stats", "alpha", str(tmp_path / "nope.csv"))
    assert code == 2 and err.strip().count("\n") == 0 and "nope.csv" in err


def test_stats_never_imports_qt(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("1,2\n1,3\n")
    code = (
        "import sys\nfrom slicereview.launcher import main\n"
        f"assert main(['stats', 'alpha', {str(path)!r}]) == 0\n"
        "assert not any(m.startswith(('PySide6', 'pyqtgraph')) for m in sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
