"""Benchmarks: run by hand (``make bench``), never part of the test suite."""
