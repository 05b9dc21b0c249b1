"""finrag: hybrid (dense + BM25) retrieval over SEC 10-K filings."""

__version__ = "0.1.0"
