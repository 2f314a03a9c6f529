"""Run the towerlab CLI with ``python -m towerlab``."""
import sys

from towerlab.cli import main

sys.exit(main())
