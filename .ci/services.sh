# Sourced by .ci/run: make sure the services the tests talk to are
# answering, starting those that are not, and fail loudly if one cannot be
# started. Each check is a real connection, not a process lookup.

answering() { # host port
  (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

wait_for() { # name port
  for _ in $(seq 60); do
    answering 127.0.0.1 "$2" && return 0
    sleep 0.5
  done
  echo "FAIL: $1 is not answering on 127.0.0.1:$2 after 30s" >&2
  return 1
}

# build_go_program NAME PACKAGE VERSION BINARY: builds the Go program at
# PACKAGE@VERSION outside the repository, into a cache folder named
# NAME-VERSION (once per version), as BINARY there; sets BUILT to its path.
build_go_program() {
  local dir="${MCPDECL_CI_CACHE:-$HOME/.cache/mcpdecl-ci}/$1-$3"
  BUILT="$dir/$4"
  [ -x "$BUILT" ] && return 0
  echo "building $2@$3 into $dir"
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$dir" && go mod init "$1-ci" >/dev/null 2>&1 &&
    GOFLAGS=-mod=mod go get "$2@$3" >/dev/null 2>&1 &&
    GOFLAGS=-mod=mod go build -o "$4.tmp" "$2" &&
    mv "$4.tmp" "$4") ||
    { echo "FAIL: could not build $2@$3" >&2; return 1; }
}

ensure_postgres() {
  if ! answering 127.0.0.1 5432; then
    echo "starting PostgreSQL"
    command -v pg_ctlcluster >/dev/null || { echo "FAIL: PostgreSQL is not installed (apt-get install postgresql)" >&2; return 1; }
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -1)" main start
  fi
  wait_for PostgreSQL 5432
  pg_isready -h 127.0.0.1 -p 5432 -q || { echo "FAIL: PostgreSQL does not accept connections" >&2; return 1; }
}

ensure_mariadb() {
  if ! answering 127.0.0.1 3306; then
    echo "starting MariaDB"
    command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || { echo "FAIL: MariaDB is not installed (apt-get install mariadb-server)" >&2; return 1; }
    start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
  fi
  wait_for MariaDB 3306
}

ensure_redis() {
  if ! answering 127.0.0.1 6379; then
    echo "starting Redis"
    command -v redis-server >/dev/null || { echo "FAIL: Redis is not installed (apt-get install redis-server)" >&2; return 1; }
    mkdir -p /var/lib/redis /var/log/redis
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log
  fi
  wait_for Redis 6379
}

# ensure_prometheus installs Debian's Prometheus when it is missing, for
# the test that has it scrape a running server, and exports its path as
# MCPDECL_TEST_PROMETHEUS. The test starts its own; none runs as a service.
ensure_prometheus() {
  if ! command -v prometheus >/dev/null; then
    echo "installing Prometheus (Debian's package)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends prometheus >/dev/null 2>&1 ||
      { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends prometheus >/dev/null 2>&1; } ||
      { echo "FAIL: could not install Prometheus (apt-get install prometheus)" >&2; return 1; }
  fi
  MCPDECL_TEST_PROMETHEUS=$(command -v prometheus)
  export MCPDECL_TEST_PROMETHEUS
  echo "$("$MCPDECL_TEST_PROMETHEUS" --version 2>&1 | head -1)"
}
