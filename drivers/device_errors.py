"""The drivers' errors: one root, each also the matching builtin."""

from __future__ import annotations


class DriverError(Exception):
    """Root of every error raised by ``drivers``."""


class DeviceNotFoundError(DriverError, FileNotFoundError):
    """A device path (serial port, I2C bus) does not exist."""


class DevicePermissionError(DriverError, PermissionError):
    """The device exists but this user may not open it (missing group)."""


class ProtocolError(DriverError, ValueError):
    """A device answered with bytes that break its protocol."""
