"""Lithium condition of the whittle benchmark: interesting when a command exits with status 0.

Lithium has conditions for crashes, hangs and output patterns, but none for the exit status that
C-Reduce, C-Vise, picire, Shrink Ray, treereduce and whittle all use, so the benchmark gives it
this one. Usage: lithium --testcase FILE lithium_exit0.py COMMAND [ARGS...]
(the command names FILE itself; lithium writes each candidate to FILE before calling this).
"""
from __future__ import annotations

import subprocess


def interesting(cli_args: list[str] | None = None, temp_prefix: str | None = None) -> bool:
    if not cli_args:
        raise ValueError("lithium_exit0.py needs a command")
    done = subprocess.run(
        cli_args,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return done.returncode == 0
