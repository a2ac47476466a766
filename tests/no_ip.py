"""Run a command with IP sockets forbidden, as systemd's ``RestrictAddressFamilies=AF_UNIX AF_NETLINK`` does.

``python tests/no_ip.py COMMAND [ARGS...]``: installs a seccomp filter (the kernel's own, as systemd
installs it; nothing in the command is patched) under which ``socket(AF_INET, ...)`` and
``socket(AF_INET6, ...)`` fail with ``EAFNOSUPPORT``, then executes the command. Exit 125 with one
line where the kernel refuses the filter (the tests that use it then skip).
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
EAFNOSUPPORT = 97
AF_INET, AF_INET6 = 2, 10
ARCHES = {"x86_64": (0xC000003E, 41), "aarch64": (0xC00000B7, 198)}
"""AUDIT_ARCH_* and the number of ``socket(2)``."""

LD_W_ABS, JEQ_K, RET_K = 0x20, 0x15, 0x06


def _filter(arch: int, nr_socket: int) -> bytes:
    deny = SECCOMP_RET_ERRNO | EAFNOSUPPORT
    program = [
        (LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        (JEQ_K, 0, 5, arch),  # another arch: allow
        (LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
        (JEQ_K, 0, 3, nr_socket),  # not socket(): allow
        (LD_W_ABS, 0, 0, 16),  # args[0], the family (low 32 bits, little-endian)
        (JEQ_K, 2, 0, AF_INET),
        (JEQ_K, 1, 0, AF_INET6),
        (RET_K, 0, 0, SECCOMP_RET_ALLOW),
        (RET_K, 0, 0, deny),
    ]
    return b"".join(struct.pack("HBBI", *ins) for ins in program)


def main() -> int:
    if len(sys.argv) < 2 or platform.machine() not in ARCHES:
        print(f"no_ip: needs a command, on {', '.join(ARCHES)}", file=sys.stderr)
        return 125
    code = _filter(*ARCHES[platform.machine()])
    buffer = ctypes.create_string_buffer(code)

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = SockFprog(len(code) // 8, ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        print(f"no_ip: the kernel refuses a seccomp filter: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        return 125
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
