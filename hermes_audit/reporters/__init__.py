"""Reporters: turn a :class:`~hermes_audit.audits.scan.ScanResult` into text, JSON, SARIF or GitHub output."""
