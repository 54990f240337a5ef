#!/bin/sh
# The many-workers case's test: it waits SECONDS (as a test sent to a remote machine would, at no
# CPU cost here) and is interesting while the file still holds the five needles
# `NEEDLE_0` … `NEEDLE_4`.
# Usage: sleep_needles.sh FILE SECONDS
sleep "$2"
grep -q NEEDLE_0 "$1" && grep -q NEEDLE_1 "$1" && grep -q NEEDLE_2 "$1" &&
    grep -q NEEDLE_3 "$1" && grep -q NEEDLE_4 "$1"
