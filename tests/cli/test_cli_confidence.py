"""``slicereview rate new|list|status`` and ``plan-rating`` on a real project (a file and a
PostgreSQL database)."""

from __future__ import annotations

import numpy as np
import pytest

from slicereview.app.rating.confidence import ConfidenceRun
from slicereview.app.rating.run import Comparison
from slicereview.launcher import main
from slicereview.model import NewImage, SessionKind
from slicereview.store import Project


@pytest.fixture
def project_path(location, tmp_path):
    path = location("p.srproj")
    f = tmp_path / "img.png"
    f.write_bytes(b"x")
    with Project.create(path) as p:
        ids = [p.images.add_source(f, f"{i:064x}", "png", [NewImage(4, 4)])[0]
               for i in range(12)]
        p.image_sets.create("twelve", ids)
    return path


def _answer(path, sid: int, T: float = 2.0, seed: int = 0) -> int:
    """Finish a confidence session with a logistic rater per rater (truth: the image id)."""
    rng = np.random.default_rng(seed)
    with Project.open(path) as p:
        run = ConfidenceRun(p, sid)
        k = 0
        while isinstance(now := run.current(), Comparison):
            run.set_rater(run.raters[k % len(run.raters)])
            now = run.current()
            if not isinstance(now, Comparison):
                break
            pr = 1 / (1 + np.exp(-(now.left - now.right) / T))
            run.answer("left" if rng.random() < pr else "right", 900)
            k += 1
        return run.answer_count


def test_rate_new_list_status_and_ranking(project_path, capsys):
    assert main(["rate", "new", str(project_path), "--kind", "confidence", "--rater", "ann",
                 "--with", "bob", "cy", "--image-set", "twelve", "--budget", "5",
                 "--target-tau", "0.99", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "session 1 'ann — confidence 1' (confidence, 12 images); stops at expected τ ≥ " \
           "0.99, or 5 comparisons per image" in out
    with Project.open(project_path) as p:
        s = p.ratings.session(1)
        assert s.kind == SessionKind.CONFIDENCE and s.seed == 4
        assert [p.raters.get(r).name for r in s.settings["raters"]] == ["ann", "bob", "cy"]
    assert _answer(project_path, 1) == 60
    assert main(["rate", "list", str(project_path)]) == 0
    out = capsys.readouterr().out
    assert "ann — confidence 1  (confidence; ann, bob, cy; twelve, 12 images): 60 answers, " \
           "finished" in out
    assert main(["rate", "status", str(project_path), "ann — confidence 1", "--least", "3"]) == 0
    out = capsys.readouterr().out
    assert "stopped by the budget" in out and "expected Kendall tau 0." in out
    assert sum(line.startswith("  C0") and " ± " in line for line in out.splitlines()) == 3
    for name in ("ann", "bob", "cy"):
        assert f"  {name}  " in out and "20 answers  η " in out
    assert main(["ranking", str(project_path), "1"]) == 0
    out = capsys.readouterr().out
    assert "stop rule: expected τ ≥ 0.99, or 5 comparisons per image; 5.0 comparisons" in out
    # A sort session too, and the mistakes one can make.
    assert main(["rate", "new", str(project_path), "--kind", "sort", "--rater", "dan"]) == 0
    assert "(sort, 12 images)" in capsys.readouterr().out
    for args, message in (
            (["--kind", "confidence", "--rater", "ann"], "needs a budget"),
            (["--kind", "sort", "--rater", "ann", "--budget", "3"], "for a confidence"),
            (["--kind", "sort", "--rater", "ann", "--with", "bob"], "only a confidence"),
            (["--kind", "confidence", "--rater", "ann", "--budget", "3", "--image-set", "x"],
             "no image set named 'x'"),
            (["--kind", "confidence", "--rater", "ann", "--target-tau", "2"], "between 0 and 1")):
        assert main(["rate", "new", str(project_path), *args]) == 2
        assert message in capsys.readouterr().err


def test_plan_rating_with_a_given_noise(project_path, capsys):
    assert main(["plan-rating", str(project_path), "--images", "20", "--noise", "0.15",
                 "--target", "0.8", "--seeds", "2"]) == 0
    captured = capsys.readouterr()
    out = captured.out
    assert "simulating 2 sessions of 20 images at T = 0.150" in out
    assert "plan: " in out and "comparisons per image" in out and "took " in out
    lines = [line for line in out.splitlines() if "per image (" in line]
    taus = [float(line.rsplit(" ", 1)[1]) for line in lines]
    assert taus[-1] >= 0.8 and all(t < 0.8 for t in taus[:-1])
    assert "simulated answers" in captured.err  # progress
    assert main(["plan-rating", str(project_path), "--images", "20", "--noise", "0.5",
                 "--target", "0.999", "--max-per-image", "2", "--seeds", "1"]) == 1
    assert "not reached within 2 comparisons per image" in capsys.readouterr().out
    for args, message in ((["--images", "1", "--noise", "0.2"], "at least 2 images"),
                          (["--images", "10", "--noise", "-1"], "positive number"),
                          (["--noise", "0.2"], "give --images")):
        assert main(["plan-rating", str(project_path), *args]) == 2
        assert message in capsys.readouterr().err


def test_plan_rating_from_a_session(project_path, capsys):
    main(["rate", "new", str(project_path), "--kind", "confidence", "--rater", "ann",
          "--budget", "8", "--image-set", "twelve", "--seed", "1"])
    main(["rate", "new", str(project_path), "--kind", "sort", "--rater", "bob",
          "--image-set", "twelve"])
    capsys.readouterr()
    _answer(project_path, 1, T=1.5)
    assert main(["plan-rating", str(project_path), "--from-session", "1", "--target", "0.7",
                 "--seeds", "1"]) == 0
    out = capsys.readouterr().out
    assert "rater noise T = " in out and "repeated pairs (" in out
    assert "sessions of 12 images" in out  # the session's image set
    # The sort session has no answers yet: nothing shows its noise.
    assert main(["plan-rating", str(project_path), "--from-session", "2"]) == 2
    assert "nothing in it shows its rater's noise" in capsys.readouterr().err
