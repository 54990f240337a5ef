#!/bin/bash
# The benchmark's counting wrapper, put between every reducer and a case's oracle so that oracle
# calls, the time spent in the oracle and the best result are measured the same way for whittle
# and for every other reducer.
# Usage: count.sh LOG ORACLE FILE [ARGS...]   runs `ORACLE FILE ARGS...` and exits with its status.
# Appends `start PID T0` before the call and `end PID T1 STATUS` after it to LOG (seconds since
# the epoch from bash's EPOCHREALTIME, which starts no process: the wrapper costs a shell start,
# not three). Lines this short are written with one append (O_APPEND), so calls running in
# parallel do not mix them up. When the call is interesting
# (exit 0) and FILE is smaller than LOG.best, FILE is copied to LOG.best under `flock`: the
# smallest interesting candidate a reducer tested, which is its result when its budget runs out.
log=$1 oracle=$2 file=$3
shift 3
echo "start $$ $EPOCHREALTIME" >>"$log"
"$oracle" "$file" "$@"
status=$?
echo "end $$ $EPOCHREALTIME $status" >>"$log"
if [ "$status" -eq 0 ] && [ -f "$file" ]; then
  (
    flock 9
    size=$(wc -c <"$file")
    if [ ! -f "$log.best" ] || [ "$size" -lt "$(wc -c <"$log.best")" ]; then
      cp "$file" "$log.best.$$" && mv "$log.best.$$" "$log.best"
    fi
  ) 9>>"$log.lock"
fi
exit "$status"
