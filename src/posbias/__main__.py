"""``python -m posbias``: the same command line as the ``posbias`` script."""

import sys

from posbias.cli import main

if __name__ == "__main__":
    sys.exit(main())
