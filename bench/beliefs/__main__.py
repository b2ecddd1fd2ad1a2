"""``python -m bench.beliefs``: see ``bench.beliefs.run``."""

import sys

from bench.beliefs.run import main

sys.exit(main())
