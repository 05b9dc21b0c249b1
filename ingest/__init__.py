"""finrag ingest: find 10-K filings on disk, read them, cut them into chunks and build the index."""
