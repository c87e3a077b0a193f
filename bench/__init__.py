"""Benchmarks (`make bench`): figures printed and written to bench/results.md, never timed tests."""
