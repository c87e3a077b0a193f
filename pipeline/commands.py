"""Imports the modules that add subcommands to the CLI (each registers its parser and handler)."""
