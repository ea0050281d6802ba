"""Thin click commands: parse options, call the library, map errors to exit codes."""
