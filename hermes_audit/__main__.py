"""``python -m hermes_audit`` entry point."""

from hermes_audit.cli.main import main

if __name__ == "__main__":  # pragma: no cover
    main()
