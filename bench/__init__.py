"""Benchmarks: each figure printed as a ratio against a raw primitive measured in the same run."""
