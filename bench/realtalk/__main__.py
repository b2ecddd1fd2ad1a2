"""``python -m bench.realtalk``: see ``bench.realtalk.run``."""

import sys

from bench.realtalk.run import main

sys.exit(main())
