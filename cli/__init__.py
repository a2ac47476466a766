"""The ``ecarte-table`` command: one module per command, each parsing its arguments and
calling the room that does the work; ``main`` is the one entry point.

The composition's top (mopidy's ``_app/``), a package above ``firmware_host`` and ``venue``: the
only one that reads the command line (``argparse``) and the only one that joins the service and
the venue. Each command turns its flags into plain
frozen options (``firmware_host.app.RunOptions``, ``GameOptions``, ``players.demo.DemoOptions``,
``players.console.SimOptions``) and registers the venue's outputs (``venue.table.wiring.VenueOutputs``,
an ``OutputSource``) with the service below, which never sees either.

May import: every package of ours (``firmware_host.app`` is the composition root below it), ``venue``.
Nothing imports the command line.
"""
