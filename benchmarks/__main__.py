"""``python -m benchmarks``: run the benchmark suite (see :mod:`benchmarks.run`)."""

import sys

from benchmarks.run import main

sys.exit(main())
