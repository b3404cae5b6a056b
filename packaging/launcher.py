"""Entry script of the PyInstaller build: runs ``slicereview.cli:main`` (the console script)."""

import sys

from slicereview.cli import main

if __name__ == "__main__":
    sys.exit(main())
