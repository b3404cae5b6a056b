"""Rating commands: ``ranking`` (a session's result, CSV export) and ``reliability``.

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
    p = sub.add_parser("ranking", help="show or export a rating session's ranking")
    add_project_argument(p)
    p.add_argument("session", help="session id or name")
    p.add_argument("--csv", type=Path, metavar="OUT",
                   help="write the ranking as CSV (image_id, case_id, file, rank, tier, score, "
                        "rater, session, answers, active_time_s)")
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
    from slicereview.app.rating.run import RatingRun
    from slicereview.app.rating.sessions import ranking_table, write_ranking_csv

    with open_project(args.project, read_only=True) as project:
        rs = RatingRun(project, project.ratings.find_session(args.session).id)
        rows = rs.rows()
        done = rs.done
    table = ranking_table(rows)
    state = "finished" if done else "NOT finished (ranking so far)"
    if args.csv:
        write_ranking_csv(args.csv, rows)
        print(f"{len(table)} images written to {args.csv}; session {state}")
        return 0
    print(f"session {rs.session.id} {rs.session.name!r} ({rs.kind}), {rs.answer_count} "
          f"answers, {rs.active_ms / 60000:.1f} min active; {state}")
    print("rank  tier  case     score     file")
    for row in table:
        print(f"{row[3]!s:>4}  {row[4]!s:>4}  {row[1]:<7}  {row[5]:>8}  {row[2]}")
    return 0


def cmd_reliability(args: argparse.Namespace) -> int:
    from slicereview.app.rating.run import RatingRun
    from slicereview.engines.ranking.reliability import SEED, format_report, reliability

    if len(args.sessions) < 2:
        raise ValueError("give at least two sessions")
    with open_project(args.project, read_only=True) as project:
        scores = [RatingRun(project, project.ratings.find_session(ref).id).session_scores()
                  for ref in args.sessions]
    report = reliability(scores, randomisations=args.randomisations,
                         seed=SEED if args.seed is None else args.seed)
    print(format_report(report))
    if args.json:
        args.json.write_text(json.dumps(report.to_dict(), indent=2, default=str),
                             encoding="utf-8")
        print(f"report written to {args.json}", file=sys.stderr)
    return 0
