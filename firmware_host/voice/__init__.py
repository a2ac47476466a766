"""The table's voice: what it says (:mod:`.announcer`, :mod:`.spoken`), how it says it
(:mod:`.speech`: espeak-ng to ALSA or WAV files) and a seat's own hand read into its
earpiece (:mod:`.hands`)."""
