"""Players that are not people, and the simulated table they play on.

Owns the built-in players (``builtin``: a game's physical events; ``packets``: dealing in
packets of three and two, answering late faults), the demo (``demo``), the simulated table of
pads, display and buttons on the real drivers (``simtable``) and the typing console (``console``).

May import: ``firmware_host.referee`` only through its protocol, transcript and snapshot
(players see what a person at the table sees), the service and journal to run a table,
``drivers`` simulators, ``engine``.
"""
