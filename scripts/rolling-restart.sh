#!/usr/bin/env bash
# Restart every `varaq serve` process of a cluster in turn, without a pause for the players.
#
#   scripts/rolling-restart.sh RUN_DIR [SECONDS] [SETTLE]
#
# Each process was started with `varaq serve ... --pid-file RUN_DIR/NAME.pid`.  For each pid
# file, one after the other: the process is sent SIGTERM — it hands its tables to the others
# (see docs/deploy.md, "Restarts") and exits — then the same command is started again, in the
# same folder with the same environment, its output appended to RUN_DIR/NAME.log, and the
# script waits until it answers /healthz, and then SETTLE seconds more (5: the pages that moved
# away come back, the new process warms up), before going on to the next.  SECONDS (30)
# bounds each wait.  Run it after installing the new version: each process comes back on the
# new code.
set -euo pipefail

run_dir=${1:?usage: rolling-restart.sh RUN_DIR [SECONDS] [SETTLE]}
limit=${2:-30}
settle=${3:-5}
shopt -s nullglob
pid_files=("$run_dir"/*.pid)
if [ ${#pid_files[@]} -eq 0 ]; then
    echo "rolling-restart: no pid files in $run_dir (start each process with --pid-file)" >&2
    exit 2
fi

# The value after FLAG in a NUL-separated command line, or DEFAULT.
arg_after() {
    local flag=$1 default=$2 file=$3 found="" take=0
    while IFS= read -r -d '' word; do
        if [ $take = 1 ]; then found=$word; take=0; fi
        [ "$word" = "$flag" ] && take=1
        case $word in "$flag"=*) found=${word#"$flag"=} ;; esac
    done <"$file"
    echo "${found:-$default}"
}

# Whether process PID still runs (a zombie, exited but not yet reaped by its parent, does not).
running() {
    local state
    state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
    [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

# Whether HOST:PORT answers GET /healthz with 200.  Bash's own /dev/tcp, not a program per
# try: a Python started ten times a second to ask took most of a core on a small machine,
# just while the new process needs it to start and the others carry every table.
healthy() {
    local address=${1#[} reply
    address=${address%]}
    exec 3<>"/dev/tcp/$address/$2" || return 1
    printf 'GET /healthz HTTP/1.0\r\nHost: %s\r\n\r\n' "$1" >&3
    IFS= read -r -t 2 reply <&3 || reply=""
    exec 3<&- 3>&-
    [[ $reply == "HTTP/1."?" 200"* ]]
} 2>/dev/null

for pid_file in "${pid_files[@]}"; do
    name=$(basename "$pid_file" .pid)
    pid=$(cat "$pid_file")
    if ! running "$pid"; then
        echo "rolling-restart: $name (pid $pid) is not running; skipped" >&2
        continue
    fi
    saved=$(mktemp -d)
    cp "/proc/$pid/cmdline" "$saved/cmdline"
    cp "/proc/$pid/environ" "$saved/environ"
    cwd=$(readlink "/proc/$pid/cwd")
    host=$(arg_after --host 127.0.0.1 "$saved/cmdline")
    case $host in 0.0.0.0 | "") host=127.0.0.1 ;; ::) host="[::1]" ;; esac
    port=$(arg_after --port 8000 "$saved/cmdline")

    nice=$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f17)  # its niceness (stat field 19)
    echo "rolling-restart: stopping $name (pid $pid, port $port)"
    kill -TERM "$pid"
    for _ in $(seq $((limit * 10))); do
        running "$pid" || break
        sleep 0.1
    done
    if running "$pid"; then
        echo "rolling-restart: $name did not stop within ${limit}s; stopping here" >&2
        exit 1
    fi

    mapfile -d '' command <"$saved/cmdline"
    mapfile -d '' environment <"$saved/environ"
    # The new process starts at a lower CPU priority: loading the code takes it a few seconds
    # of CPU, which on a small machine it would take from the processes carrying every table
    # meanwhile.  Once it answers it gets the old process's priority back (raising a priority
    # needs root: otherwise it starts at the old priority).
    start_nice=$nice
    if [ "$(id -u)" = 0 ]; then start_nice=$(( nice + ${VARAQ_START_NICE:-10} )); fi
    # The whole subshell's output goes to the log (nothing keeps this script's own output open).
    (cd "$cwd" && exec env -i "${environment[@]}" setsid nice -n "$((start_nice - $(nice)))" \
        "${command[@]}") >>"$run_dir/$name.log" 2>&1 </dev/null &
    rm -r "$saved"
    up=0
    for _ in $(seq $((limit * 10))); do
        if healthy "$host" "$port"; then up=1; break; fi
        sleep 0.1
    done
    if [ $up = 0 ]; then
        echo "rolling-restart: $name did not answer on port $port within ${limit}s" >&2
        exit 1
    fi
    if [ "$start_nice" != "$nice" ]; then
        renice -n "$nice" -p "$(cat "$pid_file")" >/dev/null || true
    fi
    echo "rolling-restart: $name is back (pid $(cat "$pid_file"))"
    [ "$pid_file" = "${pid_files[-1]}" ] || sleep "$settle"
done
