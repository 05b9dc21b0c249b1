"""Measurement tools, apart from the search core: retrieval metrics and the FinanceBench
evaluation, the latency benchmark, the concurrent-reader stress test and the reader fuzzer."""
