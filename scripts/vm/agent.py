#!/usr/bin/python3
"""The VM test's agent in the guest: runs the host's commands, one JSON object a line, over a
virtio-serial port (scripts/vm_test.py is the host's side).

A request ``{"id": N, "sh": SCRIPT, "timeout": S, "input": TEXT}`` runs ``SCRIPT`` with /bin/sh
as root and answers ``{"id": N, "rc": RC, "out": STDOUT, "err": STDERR}`` (rc 124: timed out).
Requests are carried out one after the other; a script puts what must outlive it in the
background itself. The guest's system Python only: the agent runs before the table is installed.
"""

import json
import os
import subprocess
import sys


def main() -> int:
    port = sys.argv[1]
    fd = os.open(port, os.O_RDWR | os.O_NOCTTY)
    with os.fdopen(fd, "rb+", buffering=0) as channel:
        buffer = b""
        while True:
            chunk = channel.read(65536)
            if not chunk:  # no host on the other side yet: virtio-serial reads 0
                import time
                time.sleep(0.2)
                continue
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if not line.strip():
                    continue
                try:
                    request = json.loads(line)
                except ValueError:
                    continue
                env = dict(os.environ, PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                           LANG="C.UTF-8", HOME="/root", SYSTEMD_PAGER="", SYSTEMD_COLORS="0")
                try:
                    done = subprocess.run(["/bin/sh", "-c", request["sh"]], input=request.get("input", ""),
                                          capture_output=True, text=True, errors="replace", env=env,
                                          timeout=request.get("timeout", 120), cwd="/root")
                    answer = {"id": request.get("id"), "rc": done.returncode, "out": done.stdout, "err": done.stderr}
                except subprocess.TimeoutExpired as expired:
                    answer = {"id": request.get("id"), "rc": 124, "out": str(expired.stdout or ""),
                              "err": f"timed out after {expired.timeout} s"}
                channel.write(json.dumps(answer).encode() + b"\n")


if __name__ == "__main__":
    sys.exit(main())
