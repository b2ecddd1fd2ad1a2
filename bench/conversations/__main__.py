"""``python -m bench.conversations``: see ``bench.conversations.run``."""

import sys

from bench.conversations.run import main

sys.exit(main())
