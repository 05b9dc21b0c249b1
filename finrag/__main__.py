import sys

from finrag.cli import main

sys.exit(main())
