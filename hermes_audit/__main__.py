"""``python -m hermes_audit`` entry point."""

from hermes_audit.server.client import main

if __name__ == "__main__":  # pragma: no cover
    main()
