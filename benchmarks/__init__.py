"""hermes-audit's benchmark suite (issue 8): ``python -m benchmarks`` from the repository root. Not part of pytest."""
