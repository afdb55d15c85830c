"""hermes-audit: a security linter for the text Hermes Agent puts into its system prompt.

The flow is one-directional::

    files on disk -> documents -> Hermes model (per version profile) + rule engine
                  -> audits (findings) -> reporters

Layers, lowest first (imports point only down; docs/development.md, "Architecture", and
tests/test_layers.py): ``findings``, ``hermes_audit.documents``, ``hermes_audit.patterns``,
``hermes_audit.hermes``, ``hermes_audit.engine``, ``hermes_audit.audits``, ``hermes_audit.reporters``,
``hermes_audit.cli``.
"""

__version__ = "0.1.0"

#: Where the project repository is published: the one URL that ``hermes-audit init`` writes (the pre-commit
#: hook's ``repo:``, the workflow's ``uses:``), that SARIF help links point into, and that the docs use (a test,
#: tests/test_newcomer.py, checks them). No release is on a package index yet: install from this URL
#: (``pip install git+URL``) or from a local clone (README.md, "Install").
PROJECT_URL = "https://github.com/hermes-audit/hermes-audit"
