"""Rating commands: ``ranking`` (a session's result or the pooled ranking of several, CSV
export) and ``reliability``.

SESSION arguments are a session id or a unique session name. Both commands only read the project.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from slicereview.cli._common import add_project_argument, open_project

# The rating engines (and scipy through them) are imported inside the handlers, so that other
# commands start fast.


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "ranking", help="show or export a rating session's ranking, or the pooled ranking of "
                        "several pairwise sessions (--pooled)")
    add_project_argument(p)
    p.add_argument("session", nargs="?", help="session id or name (not with --pooled)")
    p.add_argument("--pooled", action="store_true",
                   help="one Bradley–Terry fit over the answers of several pairwise "
                        "sessions of one image set (raters, passes): score, standard error "
                        "and 95%% confidence interval per image")
    p.add_argument("--sessions", nargs="+", metavar="SESSION",
                   help="with --pooled: the sessions to pool (ids or names; default every "
                        "pairwise session, if they rate one image set)")
    p.add_argument("--csv", type=Path, metavar="OUT",
                   help="write the ranking as CSV (a session: image_id, case_id, file, rank, "
                        "tier, score, rater, session, answers, active_time_s, bt_score, bt_se, "
                        "comparisons; pooled: image_id, case_id, file, rank, bt_score, bt_se, "
                        "ci95_low, ci95_high, comparisons, wins, sessions, answers)")
    p.set_defaults(func=cmd_ranking)

    p = sub.add_parser("reliability",
                       help="agreement between finished rating sessions over the same images")
    add_project_argument(p)
    p.add_argument("sessions", nargs="+", metavar="SESSION", help="two or more session ids/names")
    p.add_argument("--randomisations", type=int, default=100,
                   help="random tie-breaks to average over (default 100, as in SliceLabeler)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the random tie-breaks (default: the GUI's, 0)")
    p.add_argument("--json", type=Path, metavar="OUT", help="also write the report as JSON")
    p.set_defaults(func=cmd_reliability)


def cmd_ranking(args: argparse.Namespace) -> int:
    from slicereview.app.rating.run import open_run
    from slicereview.app.rating.sessions import ranking_table, write_ranking_csv

    if args.pooled:
        if args.session is not None:
            raise ValueError("with --pooled, name the sessions with --sessions")
        return _pooled(args)
    if args.sessions:
        raise ValueError("--sessions goes with --pooled")
    if args.session is None:
        raise ValueError("name a session (id or name), or give --pooled")
    with open_project(args.project, read_only=True) as project:
        rs = open_run(project, project.ratings.find_session(args.session).id)
        rows = rs.rows()
        done = rs.done
        meter = getattr(rs, "meter", None)
        gauge = meter() if meter is not None else None
    table = ranking_table(rows)
    state = "finished" if done else "NOT finished (ranking so far)"
    if args.csv:
        write_ranking_csv(args.csv, rows)
        print(f"{len(table)} images written to {args.csv}; session {state}")
        return 0
    print(f"session {rs.session.id} {rs.session.name!r} ({rs.kind}), {rs.answer_count} "
          f"answers, {rs.active_ms / 60000:.1f} min active; {state}")
    if str(rs.kind) == "classify":
        print(f"{'rank':>4}  {'tier':>4}  {'case':<8}  {'grade':>8}  file")
        for row in table:
            print(f"{row[3]!s:>4}  {row[4]!s:>4}  {row[1]:<8}  {row[5]:>8}  {row[2]}")
        return 0
    from slicereview.app.rating.run import BT_METHOD

    own = "wins-losses" if str(rs.kind) == "exhaustive" else "score"
    if gauge is not None:
        print(f"stop rule: {gauge.rule.describe()}; {gauge.per_image:.1f} comparisons per "
              f"image; expected Kendall tau {gauge.expected_tau:.3f} (`slicereview rate "
              f"status` for the least certain images and the raters)")
    print(f"BT = {BT_METHOD}")
    print(f"{'rank':>4}  {'tier':>4}  {'case':<8}  {own:>11}  {'BT score':>8}  {'SE':>6}  "
          f"{'n':>4}  file")
    for row in table:
        print(f"{row[3]!s:>4}  {row[4]!s:>4}  {row[1]:<8}  {row[5]:>11}  "
              f"{_num(row[10]):>8}  {_num(row[11]):>6}  {row[12]!s:>4}  {row[2]}")
    return 0


def _num(cell: str) -> str:
    """A CSV number cell at two decimals ("—" when empty: never compared)."""
    return f"{float(cell):.2f}" if cell else "—"


def _pooled(args: argparse.Namespace) -> int:
    from slicereview.app.rating.pooled import pooled_ranking, pooled_table, write_pooled_csv

    with open_project(args.project, read_only=True) as project:
        ids = [project.ratings.find_session(ref).id for ref in args.sessions or []]
        pooled = pooled_ranking(project, ids)
    if args.csv:
        n = write_pooled_csv(args.csv, pooled)
        print(f"{n} images written to {args.csv}; {len(pooled.sessions)} sessions, "
              f"{pooled.answers} answers pooled")
        return 0
    set_id, set_name = pooled.image_set
    print(f"pooled ranking of image set {set_name!r} ({len(pooled.rows)} images): "
          f"{pooled.answers} answers of {len(pooled.sessions)} sessions")
    for s in pooled.sessions:
        state = "finished" if s.finished else "not finished"
        print(f"  {s.session.id} {s.session.name!r} ({s.session.kind}, {s.rater}): "
              f"{s.answers} answers, {state}")
    print(f"method: {pooled.method}; 95% CI = score ± 1.96 SE (Wald)")
    print(f"{'rank':>4}  {'case':<8}  {'BT score':>8}  {'SE':>6}  {'95% CI':>15}  {'n':>4}  "
          "file")
    for row in pooled_table(pooled):
        ci = f"{_num(row[6])} … {_num(row[7])}" if row[6] else "not compared"
        print(f"{row[3]!s:>4}  {row[1]:<8}  {_num(row[4]):>8}  {_num(row[5]):>6}  {ci:>15}  "
              f"{row[8]!s:>4}  {row[2]}")
    return 0


def cmd_reliability(args: argparse.Namespace) -> int:
    from slicereview.app.rating.agreement import compare, report_text, session_scores

    if len(args.sessions) < 2:
        raise ValueError("give at least two sessions")
    with open_project(args.project, read_only=True) as project:
        scores = session_scores(project, [project.ratings.find_session(ref).id
                                          for ref in args.sessions])
    report = compare(scores, randomisations=args.randomisations, seed=args.seed)
    print(report_text(report))
    if args.json:
        args.json.write_text(json.dumps(report.to_dict(), indent=2, default=str),
                             encoding="utf-8")
        print(f"report written to {args.json}", file=sys.stderr)
    return 0
