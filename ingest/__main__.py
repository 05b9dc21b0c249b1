"""`python -m ingest` from a clone: the ingest job lives in finrag.ingest
(installed: `finrag-ingest`)."""
import sys

from finrag.ingest.cli import main

sys.exit(main())
