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
# smallest interesting candidate a reducer tested, which is its result when its budget runs out,
# and `best PID BYTES` is appended to LOG (how many calls it took to get how small).
log=$1 oracle=$2 file=$3
shift 3
echo "start $$ $EPOCHREALTIME" >>"$log"
"$oracle" "$file" "$@"
status=$?
echo "end $$ $EPOCHREALTIME $status" >>"$log"
if [ "$status" -eq 0 ] && [ -f "$file" ]; then
  # Few processes on this path, which every successful step of a reduction takes: one `stat`
  # for both sizes (one size when there is no best yet), a copy and a rename, so that a run
  # killed at its budget never leaves a half-written best.
  exec 9>>"$log.lock"
  flock 9
  read -r -d '' -a sizes < <(stat -c %s -- "$file" "$log.best" 2>/dev/null)
  if [ "${#sizes[@]}" -lt 2 ] || [ "${sizes[0]}" -lt "${sizes[1]}" ]; then
    cp -- "$file" "$log.best.$$" && mv -f -- "$log.best.$$" "$log.best"
    # `best PID BYTES`: the size the reducer has reached after the calls started so far.
    echo "best $$ ${sizes[0]}" >>"$log"
  fi
fi
exit "$status"
