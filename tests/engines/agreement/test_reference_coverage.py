"""Every published worked example in tests/data/agreement_cases.json is checked by a test."""

from __future__ import annotations

import json
from pathlib import Path

CASES = Path(__file__).resolve().parents[2] / "data" / "agreement_cases.json"

#: statistic of each case -> the test module that checks it.
CHECKED_BY = {
    "krippendorff_alpha": "tests/engines/agreement/test_alpha.py",
    "ICC": "tests/engines/agreement/test_icc.py",
    "generalizability coefficient ICC21 + annotators needed": "tests/engines/agreement/test_icc.py",
    "DCG/NDCG": "tests/engines/review/test_review_metrics.py",
    "P@k, R@k": "tests/engines/review/test_review_metrics.py",
    "Pearson, Spearman (average ranks), Kendall tau-b": "tests/engines/review/test_rankstats.py",
    "Dice = F1 on flattened binary masks": "tests/engines/agreement/test_mask_alpha.py",
    "Label Studio task agreement": "tests/engines/agreement/test_labelstudio.py",
    "P/R/F1 at IoU threshold 0.5": "tests/engines/agreement/test_labelstudio.py",
    "image-level and bbox-level Krippendorff alpha (nominal) on binary masks":
        "tests/engines/agreement/test_mask_alpha.py",
}


def test_every_reference_case_has_a_test():
    cases = json.loads(CASES.read_text())["cases"]
    root = Path(__file__).resolve().parents[3]
    for case in cases:
        assert case["statistic"] in CHECKED_BY, f"no test checks {case['name']}"
        assert (root / CHECKED_BY[case["statistic"]]).is_file()
