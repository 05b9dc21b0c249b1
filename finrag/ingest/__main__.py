import sys

from finrag.ingest.cli import main

sys.exit(main())
