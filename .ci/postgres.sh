#!/usr/bin/env bash
# A throwaway PostgreSQL for the test run, from Debian's packages.
#   .ci/postgres.sh start DIR [OWNER_PID]
#                               initdb into DIR, listen on 127.0.0.1 on a free port (socket in
#                               DIR), print the connection URL; the server's PID is in DIR/pid.
#                               With OWNER_PID, a guardian stops the server and removes DIR once
#                               that process is gone, however it ended (a SIGKILL runs no trap).
#   .ci/postgres.sh stop DIR    stop it by that PID and remove DIR.
# As root, the server runs as the `postgres` user (it refuses to run as root).
set -euo pipefail
command=${1:?usage: postgres.sh start|stop|guard DIR}
dir=${2:?usage: postgres.sh start|stop|guard DIR}

case "$command" in
  start)
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    if [ -z "$bin" ] || [ ! -x "$bin/postgres" ]; then
      apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
      bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    fi
    as=()
    if [ "$(id -u)" -eq 0 ]; then
      as=(setpriv --reuid=postgres --regid=postgres --init-groups)
    fi
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
    if ! "${as[@]}" "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-instructions >"$dir/initdb.log" 2>&1; then
      echo "initdb failed (the server's user must be able to reach $dir):" >&2
      tail -n 20 "$dir/initdb.log" >&2
      exit 1
    fi
    port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
    # setpriv execs: the PID started here is the server's own.
    "${as[@]}" "$bin/postgres" -D "$dir/data" -p "$port" -c listen_addresses=127.0.0.1 \
      -c "unix_socket_directories=$dir" -c max_connections=300 >"$dir/server.log" 2>&1 &
    echo $! >"$dir/pid"
    owner=${3:-}
    if [ -n "$owner" ]; then
      # In a session of its own, with no terminal and no pipe of the caller's held open (a command
      # substitution would otherwise wait for it), so neither Ctrl-C nor the caller's end stops it.
      setsid "$0" guard "$dir" "$owner" </dev/null >/dev/null 2>&1 &
    fi
    for _ in $(seq 300); do
      if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres; then
        echo "postgres://postgres@127.0.0.1:$port/postgres"
        exit 0
      fi
      kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
      sleep 0.05
    done
    echo "postgres did not start:" >&2
    tail -n 20 "$dir/server.log" >&2
    exit 1
    ;;
  guard)
    owner=${3:?usage: postgres.sh guard DIR OWNER_PID}
    while kill -0 "$owner" 2>/dev/null; do sleep 1; done
    exec "$0" stop "$dir"
    ;;
  stop)
    if [ -f "$dir/pid" ]; then
      pid=$(cat "$dir/pid")
      # Fast shutdown; wait for the PID to go so the directory is not removed under it.
      kill -INT "$pid" 2>/dev/null || true
      for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: postgres.sh start|stop|guard DIR" >&2
    exit 2
    ;;
esac
