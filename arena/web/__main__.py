"""`python -m arena.web CONTROL_FD LISTENER_FD PARENT_PID`: the web UI's process (`arena.web.process`)."""

import sys

from arena.web.process import main

main(sys.argv)
