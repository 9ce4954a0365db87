"""`python -m server.cli`: the same as the `sightline` console script."""

import sys

from . import main

sys.exit(main())
