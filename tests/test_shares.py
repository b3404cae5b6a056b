"""``shares.percent``: a share reads as a percentage everywhere, never as ``1e+02%``; only
the exact ends read 0 % and 100 %."""

from __future__ import annotations

import math

import pytest

from slicereview.shares import percent


@pytest.mark.parametrize(("share", "digits", "text"), [
    (1.0, 1, "100 %"), (0.0, 1, "0 %"), (0.5, 1, "50 %"), (0.003, 1, "0.3 %"),
    (1 / 3, 1, "33.3 %"), (0.0004, 1, "< 0.1 %"), (0.0005, 1, "0.1 %"),
    (0.9999, 1, "> 99.9 %"), (0.999, 1, "99.9 %"), (0.9995, 1, "> 99.9 %"),
    (1e-300, 1, "< 0.1 %"), (0.734, 0, "73 %"), (0.004, 0, "< 1 %"), (0.996, 0, "> 99 %"),
    (0.12345, 2, "12.35 %"), (0.001, 2, "0.1 %"), (math.nan, 1, "–"),
])
def test_a_share_reads_as_a_percentage(share, digits, text):
    assert percent(share, digits) == text


def test_no_share_between_the_ends_reads_as_an_end_and_none_uses_an_exponent():
    for k in range(1, 100_000, 7):
        text = percent(k / 100_000)
        assert text not in ("0 %", "100 %") and "e" not in text, k


@pytest.mark.parametrize("share", [-0.01, 1.01, math.inf])
def test_a_share_outside_zero_to_one_is_a_bug(share):
    with pytest.raises(ValueError, match="between 0 and 1"):
        percent(share)
