"""``python -m slicereview`` runs the command line (``slicereview --help``)."""

from slicereview.launcher import main

if __name__ == "__main__":
    raise SystemExit(main())
