"""The ingest job: find 10-K filings on disk, read them, cut them into chunks, build the index.

The library core (finrag.*) never imports it; `python -m ingest` and `finrag-ingest` run its CLI."""
