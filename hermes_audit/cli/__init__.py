"""Command-line interface (click). Each command lives in its own module and stays thin."""
