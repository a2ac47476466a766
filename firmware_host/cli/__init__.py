"""The ``ecarte-table`` command: one module per command, each parsing its arguments and
calling the room that does the work; ``main`` is the one entry point.

May import: every room's public functions, ``firmware_host.app`` (the composition root).
Nothing imports the command line.
"""
