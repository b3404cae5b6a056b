"""Rating sessions from the command line (rules in :mod:`slicereview.app.rating`, imported in
the handlers):

* ``rate new PROJECT --kind K --rater NAME [--with NAME …] [--image-set SET] [--budget B]
  [--target-tau X] [--target-rank-se X] [--prompt …] [--algorithm A] [--labels …] [--name N]
  [--seed S]`` — make a session (a confidence session takes ``--with``, the raters who share it,
  and a budget or a target); answering happens in the app's Rate tab;
* ``rate list PROJECT`` — every rating session: kind, raters, image set, answers, state;
* ``rate status PROJECT SESSION`` — a session's progress; for a confidence session its
  confidence meter (expected τ, the least certain images) and each rater's reliability;
* ``plan-rating PROJECT --images N [--noise T | --from-session S] [--target TAU]`` — how many
  comparisons per image reach a target, by simulation (:func:`slicereview.engines.ranking.plan.
  plan`), with the noise measured from a session's answers when ``--from-session``.
"""

from __future__ import annotations

import argparse
import time

from slicereview.cli._common import add_project_argument, open_project
from slicereview.shares import percent

KINDS = ("sort", "exhaustive", "confidence", "classify")


def register(sub: argparse._SubParsersAction) -> None:
    top = sub.add_parser("rate", help="make, list or inspect rating sessions (sort, "
                                      "exhaustive, confidence, classify)")
    acts = top.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = acts.add_parser("new", help="make a rating session (answer it in the Rate tab)")
    add_project_argument(p)
    p.add_argument("--kind", required=True, choices=KINDS,
                   help="sort, exhaustive, confidence (to a budget or a target, shared by "
                        "raters) or classify")
    p.add_argument("--rater", required=True, help="the rater's name (new names are added)")
    p.add_argument("--with", dest="shared", nargs="+", default=[], metavar="NAME",
                   help="confidence: the other raters who share the session")
    p.add_argument("--image-set", help="the image set's name (default: all images, as a new "
                                       "set)")
    p.add_argument("--budget", type=float, metavar="PER_IMAGE",
                   help="confidence: stop after this many comparisons per image")
    p.add_argument("--target-tau", type=float, metavar="TAU",
                   help="confidence: stop when the expected Kendall tau reaches TAU (0-1)")
    p.add_argument("--target-rank-se", type=float, metavar="PLACES",
                   help="confidence: stop when every image's rank standard deviation is at "
                        "most PLACES")
    p.add_argument("--prompt", help="the question shown (default: the kind's)")
    p.add_argument("--algorithm", help="sort: the sort algorithm (default "
                                       "tie-aware-merge-insertion)")
    p.add_argument("--labels", help="classify: grades from least to most, comma-separated")
    p.add_argument("--name", default="", help="the session's name (default: rater — kind n)")
    p.add_argument("--seed", type=int, help="seed of the presentation order (default random)")
    p.set_defaults(func=cmd_new)

    p = acts.add_parser("list", help="every rating session with its state")
    add_project_argument(p)
    p.set_defaults(func=cmd_list)

    p = acts.add_parser("status", help="a session's progress; a confidence session's meter "
                                       "and its raters' reliability")
    add_project_argument(p)
    p.add_argument("session", help="session id or name")
    p.add_argument("--least", type=int, default=5,
                   help="how many least certain images to list (default 5)")
    p.set_defaults(func=cmd_status)

    p = sub.add_parser(
        "plan-rating", help="how many comparisons per image reach a target Kendall tau, by "
                            "simulating confidence sessions")
    add_project_argument(p)
    p.add_argument("--images", type=int, metavar="N",
                   help="images to rank (default: the --from-session session's)")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--noise", type=float, metavar="T",
                     help="the rater noise T: a prefers a over b with probability "
                          "1/(1+exp(-(s_a-s_b)/T)), true scores ~ N(0, 1) (0.15 reliable, "
                          "0.5 noisy)")
    how.add_argument("--from-session", metavar="SESSION",
                     help="estimate T from a session's answers (its repeats and intransitive "
                          "triads)")
    p.add_argument("--target", type=float, default=0.9, metavar="TAU",
                   help="the Kendall tau to reach (default 0.9)")
    p.add_argument("--seeds", type=int, default=3,
                   help="simulated sessions averaged (default 3; more is steadier and slower)")
    p.add_argument("--max-per-image", type=int, default=30,
                   help="give up above this many comparisons per image (default 30)")
    p.set_defaults(func=cmd_plan)


def cmd_new(args: argparse.Namespace) -> int:
    from slicereview.app.rating.confidence import StopRule
    from slicereview.app.rating.sessions import NewSessionSpec, default_prompt, start_session
    from slicereview.model import SessionKind

    kind = SessionKind(args.kind)
    stop = None
    if kind == SessionKind.CONFIDENCE:
        stop = StopRule(args.budget, args.target_tau, args.target_rank_se)
    elif args.budget is not None or args.target_tau is not None or args.target_rank_se:
        raise ValueError("--budget and the targets are for a confidence session")
    options: dict = {}
    if args.algorithm:
        options["algorithm"] = args.algorithm
    if args.labels:
        options["labels"] = tuple(x.strip() for x in args.labels.split(",") if x.strip())
    with open_project(args.project) as project:
        set_id = None
        if args.image_set:
            found = [i for i, name in project.image_sets.all().items() if name == args.image_set]
            if not found:
                raise KeyError(f"no image set named {args.image_set!r} (`slicereview info` "
                               "lists them)")
            set_id = found[0]
        spec = NewSessionSpec(
            kind, args.rater, set_id, args.prompt or default_prompt(kind), name=args.name,
            seed=args.seed, shared_with=tuple(args.shared), stop=stop, **options)
        session_id = start_session(project, spec)
        s = project.ratings.session(session_id)
        images = len(project.image_sets.members(s.image_set_id))
    extra = f"; stops at {stop.describe()}" if stop else ""
    print(f"session {session_id} {s.name!r} ({kind}, {images} images){extra}; answer it in "
          f"the Rate tab: slicereview {args.project}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from slicereview.app.rating.sessions import RatingRuns

    with open_project(args.project, read_only=True) as project:
        rows = RatingRuns(project).overview()
        raters = {r.id: r.name for r in project.raters.all()}
        if not rows:
            print("no rating sessions")
            return 0
        for row in rows:
            s = row.session
            names = [raters[int(r)] for r in s.settings.get("raters") or [s.rater_id]]
            unit = "grades" if s.kind == "classify" else "answers"
            state = "finished" if row.finished else "in progress"
            print(f"{s.id:>4}  {s.name}  ({s.kind}; {', '.join(names)}; {row.image_set}, "
                  f"{row.images} images): {row.answered} {unit}, {state}")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from slicereview.app.rating.confidence import ConfidenceRun
    from slicereview.app.rating.raters import rater_input
    from slicereview.app.rating.run import open_run

    with open_project(args.project, read_only=True) as project:
        run = open_run(project, project.ratings.find_session(args.session).id)
        s = run.session
        state = "finished" if run.done else "in progress"
        print(f"session {s.id} {s.name!r} ({s.kind}): {len(run.items)} images, "
              f"{run.answer_count} {'grades' if s.kind == 'classify' else 'answers'}, "
              f"{run.active_ms / 60000:.1f} min active; {state}")
        if not isinstance(run, ConfidenceRun):
            return 0
        m = run.meter(max(1, args.least))
        case = {i: project.images.get(i).case_id for i, _, _ in m.least_certain}
        print(f"stop rule: {m.rule.describe()} ({m.total} answers at most)"
              + (f"; stopped by the {m.stopped}" if m.stopped else ""))
        phase = "opening sort pass" if m.sorting else "choosing pairs"
        print(f"{m.per_image:.1f} comparisons per image ({phase}); expected Kendall tau "
              f"{m.expected_tau:.3f}; largest rank SD {m.max_rank_se:.2f} places")
        print("least certain places (expected rank ± SD):")
        for image_id, rank, sd in m.least_certain:
            print(f"  {case[image_id]:<10} {rank:6.1f} ± {sd:.2f}")
        started = time.monotonic()
        lines = rater_input(project, [s.id]).compute()
    print(f"raters (Crowd-BT reliability η, 1 = as the pooled ranking, 0.5 = a coin; "
          f"{time.monotonic() - started:.1f} s):")
    for line in lines:
        print(f"  {line.name:<20} {line.answers:>6} answers  η {line.eta:.3f}  agrees "
              f"{percent(line.agreement, 0)}")
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    from slicereview.app.rating.planning import measured_noise, plan_rating
    from slicereview.cli._common import ProgressBar

    n, noise = args.images, args.noise
    with open_project(args.project, read_only=True) as project:
        if args.from_session:
            s = project.ratings.find_session(args.from_session)
            estimate = measured_noise(project, s.id)
            noise = estimate.T
            n = n or len(project.image_sets.members(s.image_set_id))
            evidence = (f"{estimate.repeat_pairs} repeated pairs "
                        f"({estimate.repeat_disagreements:g} disagreed), {estimate.triads} "
                        f"decided triads ({estimate.intransitive} intransitive)")
            if estimate.bound:
                print(f"session {s.name!r}: nothing contradicted anything ({evidence}); T ≤ "
                      f"{noise:.3f} is an upper guess, so this plan is on the safe side")
            else:
                print(f"session {s.name!r}: rater noise T = {noise:.3f} from {evidence}")
    if n is None:
        raise ValueError("give --images N (or --from-session, whose image set is used)")
    print(f"simulating {args.seeds} sessions of {n} images at T = {noise:.3f} until the mean "
          f"Kendall tau reaches {args.target:g} (at most {args.max_per_image} comparisons per "
          "image)")
    bar, started = ProgressBar("simulated answers"), time.monotonic()

    def progress(done: int, total: int) -> None:
        """The bar, with the time left if the simulation had to go to the last budget."""
        spent = time.monotonic() - started
        left = spent / done * (total - done) if done else 0.0
        bar(done, total, f"{spent:.0f} s, at most {left:.0f} s more")

    planned = plan_rating(n, noise, target=args.target, seeds=args.seeds,
                          max_per_image=args.max_per_image, progress=progress)
    simulated = int(round(planned.result.simulation.per_image[-1] * n)) * args.seeds
    bar(simulated, simulated, f"{planned.seconds:.1f} s")  # the bar ends where the plan did
    result, took = planned.result, planned.seconds
    sim = result.simulation
    for per_image, tau in zip(sim.per_image, sim.tau, strict=True):
        print(f"  {per_image:>4g} per image ({int(round(per_image * n)):>6} comparisons): "
              f"mean tau {tau:.3f}")
    if result.per_image is None:
        print(f"not reached within {args.max_per_image} comparisons per image (tau "
              f"{sim.tau[-1]:.3f}); took {took:.1f} s")
        return 1
    sort = (f"the opening sort pass takes {sim.sort_answers / n:.1f} per image"
            if sim.sort_answers == sim.sort_answers else "before the opening sort pass ends")
    print(f"plan: {result.per_image:g} comparisons per image, {result.comparisons} in all, for "
          f"tau ≥ {args.target:g} (mean of {args.seeds} simulated sessions; {sort}); took "
          f"{took:.1f} s")
    return 0
