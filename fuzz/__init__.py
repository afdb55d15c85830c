"""Fuzzing harness for hermes-audit (issue 9). Run ``python -m fuzz --help``; see docs/hardening.md."""
