"""The table's voice: what it says (:mod:`.announcer`, :mod:`.spoken`), how it says it
(:mod:`.speech`: espeak-ng to ALSA or WAV files), a seat's own hand read into its earpiece
(:mod:`.hands`) and the parts built from ``[voice]`` (:mod:`.voice_parts`).

May import: ``referee`` (outcomes and snapshots: what the voice says), ``screens`` (the OLED's
words, so that a fault is said as it is shown, and ``screens.public_faults``, the rule of what a
spectator may know, which the voice obeys as the page does) and ``errors``. Never ``venue``.
"""
