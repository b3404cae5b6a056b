"""``slicereview privacy``: what everyone but the owner gets of the images (docs/privacy.md;
:mod:`slicereview.app.images.privacy` and :mod:`slicereview.app.images.sharing`, imported in
the handler)."""

from __future__ import annotations

import argparse
import sys

from slicereview.cli._common import add_project_argument, open_project

_SHARE = {"deidentified": "deidentified", "originals": "originals"}
_NAMES = {"case-ids": "case_ids", "file-names": "file_names"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("privacy", help="show or change what others get of the images "
                                       "(de-identified copies or originals)")
    add_project_argument(p)
    p.add_argument("--share", choices=sorted(_SHARE),
                   help="what work packages and non-owner logins get (default deidentified)")
    p.add_argument("--names", choices=sorted(_NAMES),
                   help="how images are named to them (default case-ids)")
    p.add_argument("--yes", action="store_true",
                   help="confirm the change without asking (scripts)")
    p.add_argument("--prepare", action="store_true",
                   help="make the de-identified copy of every image that has none")
    p.set_defaults(func=cmd_privacy)


def cmd_privacy(args: argparse.Namespace) -> int:
    from slicereview.app.images import privacy, sharing
    from slicereview.model import SharedImages, SharedNames

    with open_project(args.project) as project:
        old = privacy.setting(project)
        images = SharedImages(_SHARE[args.share]) if args.share else old.images
        names = SharedNames(_NAMES[args.names]) if args.names else old.names
        if (images, names) != (old.images, old.names):
            print(privacy.describe_change(old, images, names))
            if not args.yes and not _confirmed():
                print("Nothing was changed.")
                return 1
            who = project.raters.own()
            privacy.change(project, images=images, names=names,
                           by=who.name if who else (project.db.login() or "owner"))
        if args.prepare or (images, names) != (old.images, old.names):
            print(sharing.prepare(project).text)
        now = privacy.setting(project)
        print(f"shared images: {now.images}; names shown: {str(now.names).replace('_', ' ')}"
              + (f" (set by {now.changed_by} at {now.changed_at})" if now.changed_by else
                 " (the default)"))
        for case, why in sharing.flagged(project):
            print(f"check before sharing: {case}: {'; '.join(why)}")
    return 0


def _confirmed() -> bool:
    if not sys.stdin.isatty():
        raise ValueError("This change needs a confirmation: run it in a terminal, or add "
                         "--yes; nothing was changed.")
    return input("Change it? [y/N] ").strip().lower() in ("y", "yes")
