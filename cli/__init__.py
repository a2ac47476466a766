"""The ``ecarte-table`` command: one module per command, each parsing its arguments and
calling the room that does the work; ``main`` is the one entry point.

The composition's top (mopidy's ``_app/``): the only room that reads the command line
(``argparse``) and the only one that imports ``venue``. Each command turns its flags into plain
frozen options (``firmware_host.app.RunOptions``, ``GameOptions``, ``players.demo.DemoOptions``,
``players.console.SimOptions``) and registers the venue's outputs (``venue.wiring.VenueOutputs``,
an ``OutputSource``) with the room below, which never sees either.

May import: every room's public functions, ``firmware_host.app`` (the composition root), ``venue``.
Nothing imports the command line.
"""
