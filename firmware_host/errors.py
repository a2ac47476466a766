"""The service's errors."""

from __future__ import annotations


class BadInput(Exception):
    """Input the table cannot use: the message names the file, the line and what was expected.

    The command line prints it and exits with status 2.
    """
