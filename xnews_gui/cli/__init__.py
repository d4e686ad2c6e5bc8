"""The command line: `python main.py <command>` (one module per command group); no command opens the app."""

from .main import main, program

__all__ = ["main", "program"]
