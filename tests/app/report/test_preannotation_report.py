"""*What pre-annotation did* recovers what simulated annotators were made to do: annotators
who keep the model's outline with a known probability when shown it (slicereview.demo.
preannotation), on a batch pre-annotated on a seeded half; the section's HTML; a batch with
the model shown everywhere has no control arm and says so."""

from __future__ import annotations

import pytest

from slicereview.app.qa.preannotation import set_preannotation
from slicereview.app.qa.workflow import define_batch
from slicereview.app.report.owner_report import collect as collect_report
from slicereview.app.report.owner_report import render
from slicereview.app.report.preannotation import collect
from slicereview.demo.preannotation import add_images, add_model, simulate_preannotated_work
from slicereview.store import Project


def _batch(project, folder, n_images, n_people, share="half", seed=0):
    images, regions = add_images(project, folder, n_images, seed=seed)
    model = add_model(project, regions, seed=seed)
    people = [project.raters.ensure(f"Simulated follower {k}", simulated=True)
              for k in range(n_people)]
    batch = define_batch(project, "pre", "formal", images, raters=people)
    set_preannotation(project, batch, model, share, seed=seed + 1)
    return batch, regions


@pytest.mark.parametrize("follow", [0.0, 0.5])
def test_the_report_recovers_the_annotators_tendency_to_follow_the_model(location, tmp_path,
                                                                         follow):
    with Project.create(location()) as project:
        batch, regions = _batch(project, tmp_path, 40, 3, seed=3)
        assert simulate_preannotated_work(project, batch, regions, follow=follow,
                                          seed=4) == 120
        [effect] = collect(project)
    assert (effect.images, effect.finished, effect.pending) == (40, 120, 0)
    assert effect.time.n_shown == 60 and effect.time.n_not_shown == 60
    # the estimates lie within three standard errors (the 95 % interval's half-width / 1.96)
    # of what the annotators were made to do: one run in 370 fails by chance
    gap = effect.gap
    assert abs(gap.difference - follow) <= 3 * (gap.high - gap.low) / 3.92
    assert gap.high - gap.low < 0.35  # (informative: not an interval of everything)
    # time: following saves follow * (60 - 12) s on average (lognormal sd 0.3 around each)
    saved = -follow * 48 * 1.046  # (E[lognormal(0, 0.3)] = exp(0.045))
    t = effect.time
    assert abs(t.difference - saved) <= 3 * (t.high - t.low) / 3.92
    if follow == 0.0:  # nobody follows: the arms agree with the model alike
        assert effect.model_dice.low <= 0.0 <= effect.model_dice.high
    else:  # following pulls the shown arm toward the model, away from the others' drawings
        assert effect.model_dice.low > 0.0  # (the shift is detected)


def test_the_section_in_the_report_and_a_batch_without_a_control_arm(location, tmp_path):
    with Project.create(location()) as project:
        batch, regions = _batch(project, tmp_path, 6, 2, share="all", seed=9)
        simulate_preannotated_work(project, batch, regions, follow=0.5, seed=1)
        html = render(collect_report(project))
    section = html[html.index("<h2>What pre-annotation did</h2>"):]
    assert "Simulated model@1 shown on all of the images (seed 10)" in section
    assert "12 finished annotations (12 shown, 0 not shown)" in section
    assert "no control arm" in section and "cluster bootstrap over images" in section


def _section(effects):
    from slicereview.app.report.preannotation import render as render_section

    return render_section(effects, lambda head, rows: f"<table>{head}{rows}</table>")


def test_a_half_batch_not_annotated_yet_waits_for_both_arms(location, tmp_path):
    # found on the new-user walk: a half batch with no finished work said "with the model
    # shown on all images there is no control arm", which is not this batch
    with Project.create(location()) as project:
        _batch(project, tmp_path, 4, 2, share="half", seed=5)
        section = _section(collect(project))
        assert "No comparison yet: each arm needs a finished annotation" in section
        assert "no control arm" not in section


def test_without_a_preannotated_batch_the_section_names_the_menu_that_sets_one(location):
    with Project.create(location()) as project:
        section = _section(collect(project))
    assert "Owner ▸ Phases and batches…" in section
