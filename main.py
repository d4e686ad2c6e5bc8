"""`python main.py` opens the app; `python main.py <command>` runs the command line."""

import sys

from xnews_gui.cli import program

if __name__ == "__main__":
    sys.exit(program())
