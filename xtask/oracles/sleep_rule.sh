#!/bin/sh
# The simulated cluster's test: it waits SECONDS (as a test sent to a remote machine would, at no
# CPU cost here) and then answers from a fixed rule: interesting while the file still mentions both
# `get_referrers` and `lambda`.
# Usage: sleep_rule.sh FILE SECONDS
sleep "$2"
grep -q get_referrers "$1" && grep -q lambda "$1"
