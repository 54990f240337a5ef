#!/bin/sh
# Oracle of the benchmark case py-underlying-dict (../shared/guide/cases.md): FILE, run with
# python3 in its own directory with a timeout of ORACLE_TIMEOUT seconds (default 10), dies with
# SIGSEGV. Usage: py_segfault.sh FILE; exit 0 = interesting.
# `timeout` re-raises the signal its child died of, so a segfault is exit status 139 (128 + 11;
# Python's subprocess reports it as -11) with or without it; a timeout is 124, not interesting.
# A plain `exit(139)` looks the same to a shell and counts too, as cases.md's "exit status 139"
# says; the crasher this is for cannot be reduced to one.
f=$1
[ -f "$f" ] || { echo "py_segfault.sh: no such file: $f" >&2; exit 2; }
cd "$(dirname -- "$f")" || exit 2
# No core files in the candidate's directory, and nothing read from the terminal.
ulimit -c 0 2>/dev/null
timeout "${ORACLE_TIMEOUT:-10}" python3 "./$(basename -- "$f")" </dev/null >/dev/null 2>&1
[ $? -eq 139 ]
