"""hermes-audit: a security linter for the text Hermes Agent puts into its system prompt.

The flow is one-directional::

    files on disk -> documents -> Hermes model (per version profile) + rule engine
                  -> findings -> reporters

See ``hermes_audit.documents``, ``hermes_audit.hermes``, ``hermes_audit.engine``
and ``hermes_audit.reporters``.
"""

__version__ = "0.1.0"
