"""What the demo tests share: reading a running demo's output."""

from __future__ import annotations

import re
import subprocess
import time


def read_until(process: subprocess.Popen[str], pattern: str, timeout: float) -> list[str]:
    """The lines `process` prints up to the first that matches `pattern`; fails after `timeout` seconds."""
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise AssertionError(f"the process ended before {pattern!r}: {''.join(lines)}")
        lines.append(line.rstrip("\n"))
        if re.search(pattern, line):
            return lines
    raise AssertionError(f"no {pattern!r} within {timeout:.0f} s: {''.join(lines)}")
