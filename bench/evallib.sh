# Helpers of the eval benchmarks (bench/evaltools.sh, bench/evalcpp.sh);
# sourced, not run.

# eval_wall BIN WORK NAME DATASET [FLAGS...]: runs one `fixloop eval` of
# DATASET with the rules provider and one round (and FLAGS), in a fresh
# store and state directory under WORK named NAME, its stderr kept in
# WORK/NAME.log, and prints its wall time in seconds. A failed run prints
# its log and ends the script.
eval_wall() {
  local bin="$1" work="$2" name="$3" data="$4" start end
  shift 4
  start=${EPOCHREALTIME/./}
  XDG_STATE_HOME="$work/state-$name" FIXLOOP_MODEL= "$bin" eval --provider rules --rounds 1 "$@" \
    --run "$name" --store "$work/$name.db" "$data" >/dev/null 2>"$work/$name.log" ||
    { cat "$work/$name.log" >&2; exit 1; }
  end=${EPOCHREALTIME/./}
  printf '%d.%02d\n' $(( (end - start) / 1000000 )) $(( (end - start) % 1000000 / 10000 ))
}

# median X...: the middle value (the upper middle of an even count).
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
