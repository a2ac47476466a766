"""NFC pads: PN532 readers on nfcpy, and an emulated PN532 to test them.

``pad`` imports nfcpy; ``pn532sim`` needs only the standard library. Import
the submodule you need (``from drivers.nfc.pad import Pad``): nothing is
imported here, so the rest of ``drivers`` loads on machines without nfcpy.
"""
