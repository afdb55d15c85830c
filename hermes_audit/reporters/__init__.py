"""Reporters: turn a :class:`~hermes_audit.scan.ScanResult` into text, JSON, SARIF or GitHub output."""
