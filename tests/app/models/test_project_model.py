"""The project model in a project (app/models): the accepted images and their truth, training a
version with its held-out score, storing it (both backends), status and the retraining rule,
predicting images, Cancel, and the plain sentences for what cannot be done."""

from __future__ import annotations

import numpy as np
import pytest

from slicereview.app.models import project_model as pm
from slicereview.app.models.project_predict import predict_images
from slicereview.app.models.training_set import accepted_images, truth_reader
from slicereview.engines.learning import ProjectModel, Settings
from slicereview.engines.prediction import Cancelled
from slicereview.store import Project
from tests.app.model_project import build

FAST = Settings(trees=8, tissue="none", tile=128, patch=64, patches_per_image=4,
                samples_per_image=1500, sigma_max=4.0)


def test_accepted_images_and_their_truth(location, tmp_path):
    project, truth = build(location(), tmp_path / "images", n=6, accepted=3, rejected=1)
    with project:
        found = accepted_images(project)
        # the image with one rejected annotation counts with its accepted one alone
        assert [f.truth for f in found] == ["consensus"] * 3 + ["annotation"]
        assert [len(f.annotation_ids) for f in found] == [2, 2, 2, 1]
        labels = truth_reader(project, found[0])()
        t = truth[found[0].image_id]
        # where both outlines agree: certain; the ring one of two marked: uncertain (left out)
        assert np.all(labels[t == 1] == 1)
        ring = (labels == 2)
        assert ring.any() and not np.any(t[ring] == 1)
        assert set(np.unique(labels)) == {0, 1, 2}
        # an image sent to an expert waits for the expert
        from slicereview.app.review.decisions import decide

        decide(project, project.raters.by_name("boss").id, found[0].annotation_ids[0],
               "expert_review", reason_tags=["unsure"])
        assert [f.image_id for f in accepted_images(project)] == [
            f.image_id for f in found[1:]]


def test_gold_outranks_the_consensus(location, tmp_path):
    from slicereview.app.qa.workflow import mark_gold

    project, _ = build(location(), tmp_path / "images", n=3, accepted=2, rejected=0)
    with project:
        first = accepted_images(project)[0]
        mark_gold(project, first.annotation_ids[1])
        again = {f.image_id: f for f in accepted_images(project)}[first.image_id]
        assert again.truth == "gold"
        labels = truth_reader(project, again)()
        assert set(np.unique(labels)) <= {0, 1}  # the gold annotation as drawn: no ring


def test_train_score_store_and_status(location, tmp_path):
    project, truth = build(location(), tmp_path / "images", n=7, accepted=4, rejected=1)
    with project:
        assert pm.status(project).latest is None
        steps: list[tuple[int, int, str]] = []
        v1 = pm.train_version(project, settings=FAST, trained_by="boss",
                              progress=lambda d, t, w: steps.append((d, t, w)))
        assert (v1.version, v1.name, v1.accepted) == (1, "project@v1", 5)
        assert sorted(v1.images) == sorted(f.image_id for f in accepted_images(project))
        assert steps[-1][0] == steps[-1][1] == 2 * 5 + FAST.trees
        assert {w for _, _, w in steps} == {"reading accepted images", "growing the forest",
                                           "scoring on held-out images"}
        score = v1.score
        assert score["method"] == "5-fold cross-validation by image" and score["folds"] == 5
        assert len(score["images"]) == 5
        dice = score["dice"]
        assert dice["n"] == 5 and dice["low"] <= dice["mean"] <= dice["high"]
        assert dice["mean"] > 0.6  # bright squares are learnt
        # the stored bytes are the model, with its settings
        again, model = pm.load_model(project)
        assert again == v1 and isinstance(model, ProjectModel) and model.settings == FAST
        st = pm.status(project)
        assert (st.accepted, st.new_since, st.retrain_every, st.due) == (5, 0, None, False)
    with Project.open(location()) as project:  # committed: another connection reads it
        assert [v.version for v in project.project_models.all()] == [1]
        assert project.project_models.latest().score == score


def test_retraining_due_after_n_newly_accepted(location, tmp_path):
    from slicereview.app.review.decisions import decide

    project, _ = build(location(), tmp_path / "images", n=6, accepted=2, rejected=0)
    with project:
        pm.set_retrain_every(project, 2)
        pm.train_version(project, settings=FAST)
        assert not pm.status(project).due
        boss = project.raters.by_name("boss").id
        unreviewed = [a for a in project.annotations.all()
                      if a.id not in project.reviews.current_decisions()]
        for image_id in sorted({a.image_id for a in unreviewed})[:2]:
            for a in unreviewed:
                if a.image_id == image_id:
                    decide(project, boss, a.id, "accept")
        st = pm.status(project)
        assert (st.accepted, st.new_since, st.retrain_every, st.due) == (4, 2, 2, True)
        v2 = pm.train_version(project)  # the newest version's settings are kept
        assert v2.version == 2 and v2.settings == FAST.to_dict() and v2.accepted == 4
        assert not pm.status(project).due
        with pytest.raises(pm.ProjectModelError, match="from 1 to 10000"):
            pm.set_retrain_every(project, -1)
        pm.set_retrain_every(project, 0)
        assert pm.retrain_every(project) is None


def test_predict_images_finds_the_squares(location, tmp_path):
    project, truth = build(location(), tmp_path / "images", n=6, accepted=4, rejected=0)
    with project:
        v = pm.train_version(project, settings=FAST)
        maps = {}
        found = predict_images(project, each=lambda i, p: maps.__setitem__(i, p))
        assert sorted(f.image_id for f in found) == sorted(
            i.id for i in project.images.all() if i.id not in v.images)
        for f in found:
            t = truth[f.image_id] == 1
            predicted = maps[f.image_id] >= FAST.certain
            dice = 2 * np.sum(predicted & t) / (predicted.sum() + t.sum())
            assert dice > 0.7
            assert 0 <= f.uncertain_fraction < 0.2 and 0 < f.entropy < 1
            assert f.region_px == int(predicted.sum())
        # stored as the version's model rater's finished annotations, never a person's
        rater = project.raters.by_name("project@v1")
        assert rater.is_model and rater.label == "project@v1"
        stored = project.annotations.all(rater_id=rater.id)
        assert sorted(a.id for a in stored) == sorted(f.annotation_id for f in found)
        assert {str(a.status) for a in stored} <= {"submitted", "nothing_to_annotate"}
        polygons = [p for a in stored for p in project.polygons.of(a.id)]
        assert polygons and all(p.model == "project@v1" for p in polygons)
        # a model's predictions never become training data, even when accepted
        from slicereview.app.review.decisions import decide

        before = accepted_images(project)
        decide(project, project.raters.by_name("boss").id, stored[0].id, "accept")
        assert accepted_images(project) == before
        # predicting again replaces the version's annotation of the image
        again = predict_images(project, [found[0].image_id])
        assert again[0].annotation_id == found[0].annotation_id or len(
            project.annotations.all(rater_id=rater.id)) == len(stored)


def test_nothing_accepted_or_nothing_trained_is_said_plainly(location, tmp_path):
    project, _ = build(location(), tmp_path / "images", n=2, accepted=0, rejected=0)
    with project:
        with pytest.raises(pm.ProjectModelError, match="No image is accepted yet"):
            pm.train_version(project, settings=FAST)
        with pytest.raises(pm.ProjectModelError, match="has not been trained yet"):
            predict_images(project)
        with pytest.raises(pm.ProjectModelError, match="no version 3"):
            pm.load_model(project, 3)


def test_one_accepted_image_trains_without_a_score(location, tmp_path):
    project, _ = build(location(), tmp_path / "images", n=2, accepted=1, rejected=0)
    with project:
        v = pm.train_version(project, settings=FAST)
        assert v.score["folds"] == 0 and "Fewer than two images" in v.score["reason"]
        assert v.score["dice"]["mean"] is None


def test_cancel_stores_nothing(location, tmp_path):
    project, _ = build(location(), tmp_path / "images", n=4, accepted=3, rejected=0)
    with project:
        calls = []

        def cancelled() -> bool:
            calls.append(1)
            return len(calls) > 3

        with pytest.raises(Cancelled):
            pm.train_version(project, settings=FAST, cancelled=cancelled)
        assert project.project_models.all() == []


def test_the_report_plots_the_score_against_accepted_images(location, tmp_path):
    from slicereview.app.report.owner_report import collect, render

    project, _ = build(location(), tmp_path / "images", n=5, accepted=3, rejected=0)
    with project:
        assert "Not trained yet" in render(collect(project))
        pm.train_version(project, settings=FAST)
        v1 = project.project_models.latest()
        page = render(collect(project))
    assert "<h2>The project model</h2>" in page
    assert 'alt="project model scores" src="data:image/png;base64,iVBORw0K' in page
    dice = v1.score["dice"]
    assert f"{dice['mean']:.3f} [{dice['low']:.3f}, {dice['high']:.3f}]" in page
    assert "3-fold cross-validation by image" in page


def test_predictions_order_a_batch_by_the_models_entropy(location, tmp_path):
    from slicereview.app.qa.model_predictions import predict_and_rank
    from slicereview.app.qa.selection import ordered_images, set_order, stored_uncertainty
    from slicereview.app.qa.workflow import define_batch

    project, _ = build(location(), tmp_path / "images", n=7, accepted=3, rejected=0)
    with project:
        v = pm.train_version(project, settings=FAST)
        unseen = [i.id for i in project.images.all() if i.id not in v.images]
        found = predict_and_rank(project)
        rater = project.raters.by_name("project@v1")
        kept = stored_uncertainty(project, rater.id)
        assert kept == pytest.approx({f.image_id: f.entropy for f in found})
        owner = project.raters.add("owner", "owner")
        ann = project.raters.by_name("ann1").id
        batch = define_batch(project, "next", "formal", unseen, raters=[ann])
        set_order(project, owner, batch, "uncertainty", rater_id=rater.id)
        order = ordered_images(project, batch)
        by_entropy = sorted(found, key=lambda f: -f.entropy)
        assert order[:len(by_entropy)] == [f.image_id for f in by_entropy]


def test_small_regions_are_left_out_of_stored_predictions(location, tmp_path):
    project, _ = build(location(), tmp_path / "images", n=5, accepted=4, rejected=0)
    with project:
        pm.train_version(project, settings=FAST)
        with pytest.raises(pm.ProjectModelError, match="from 0 to 100000"):
            pm.set_min_region(project, -3)
        [all_kept] = predict_images(project)
        rater = project.raters.by_name("project@v1")
        polygons = len(project.polygons.of(all_kept.annotation_id))
        assert polygons >= 2
        pm.set_min_region(project, 10**5)  # larger than the image: nothing is kept
        [none_kept] = predict_images(project)
        annotation = project.annotations.get(none_kept.annotation_id)
        assert str(annotation.status) == "nothing_to_annotate"
        assert project.polygons.of(annotation.id) == []
        # the uncertainty is the model's, whatever is shown
        assert none_kept.entropy == all_kept.entropy and none_kept.region_px == all_kept.region_px
        assert len(project.annotations.all(rater_id=rater.id)) == 1
