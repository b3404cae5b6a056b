"""Entry script of the PyInstaller build: runs ``slicereview.launcher:main`` (the console script)."""

import sys

from slicereview.launcher import main

if __name__ == "__main__":
    sys.exit(main())
