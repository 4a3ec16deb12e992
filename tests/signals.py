"""A child a test stops with a signal, started as a terminal's foreground job would be.

A signal disposition set to "ignore" survives exec, so every process a run starts
inherits what the run was handed: a job started with ``&`` by a shell without job
control (a script, ``nohup ... &`` typed into one, a CI step) ignores SIGINT and
SIGQUIT, and ``nohup`` ignores SIGHUP. A test that presses Ctrl-C in a child's terminal
would then test nothing but that inheritance (the child never hears it, issue 47), so
the children such tests start get the dispositions a user's terminal gives a command
(:func:`default_signals`), whatever this run was started with.
"""

from __future__ import annotations

import fcntl
import os
import signal
import termios

# What a terminal's signals and a closed terminal send; a shell's `&` or nohup may have
# set them to "ignore" in this run.
STOPPING = (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP)


def default_signals() -> None:
    """Give this process (a child between fork and exec) the default disposition of the
    signals that stop a run, unblocked, as a command typed into a terminal has them."""
    for signum in STOPPING:
        signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)


def own_terminal() -> None:
    """``preexec_fn`` of a child whose stdin is a pty's follower: a session of its own,
    that pty its controlling terminal (Ctrl-C there reaches it), default signals."""
    default_signals()
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
