#!/usr/bin/env bash
# Starts a local single-node Elasticsearch for development and CI (not part of cita's runtime).
# Builds the launcher (tools/es, Maven) if needed, starts it in the background, waits for
# _cluster/health to be yellow and prints the URL. Data, logs and the pid live under .cita/es/.
#
# Environment: CITA_ES_PORT (9200), CITA_ES_HOME (.cita/es), CITA_ES_HEAP (1g),
#              CITA_ES_JAVA_HOME (/usr/lib/jvm/temurin-25-jdk-amd64), CITA_ES_START_TIMEOUT (180 s).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
project="$root/tools/es"
home="${CITA_ES_HOME:-$root/.cita/es}"
port="${CITA_ES_PORT:-9200}"
heap="${CITA_ES_HEAP:-1g}"
java_home="${CITA_ES_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
timeout="${CITA_ES_START_TIMEOUT:-180}"
url="http://127.0.0.1:$port"
pidfile="$home/es.pid"
log="$home/logs/node.out"

say() { echo "es:start: $*"; }
healthy() { curl -sf --max-time 5 "$url/_cluster/health?wait_for_status=yellow&timeout=1s" >/dev/null 2>&1; }

if [[ ! -x "$java_home/bin/java" ]]; then
  say "no Java at $java_home (set CITA_ES_JAVA_HOME to a JDK 21+; Temurin 25 is what this was tested with)" >&2
  exit 1
fi

if [[ -f "$pidfile" ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
  if healthy; then
    say "already running (pid $(cat "$pidfile")) at $url"
    echo "$url"
    exit 0
  fi
  say "pid $(cat "$pidfile") is alive but $url does not answer; run \`npm run es:stop\` first" >&2
  exit 1
fi
if healthy; then
  say "something else already answers at $url (not started by this script); set CITA_ES_PORT to use another port" >&2
  exit 1
fi

# Build when the launcher is missing or older than its sources. Offline first (after the first
# build every artifact is in ~/.m2), online if something is missing.
jar="$project/target/cita-es-node-0.1.0.jar"
if [[ ! -f "$jar" || ! -f "$project/target/classpath.txt" || -n "$(find "$project/pom.xml" "$project/src" -newer "$jar" -type f | head -1)" ]]; then
  say "building the launcher (Maven, tools/es)…"
  export JAVA_HOME="$java_home"
  if ! (cd "$project" && mvn -B -q -o package >"$project/target-build.log" 2>&1); then
    say "offline build failed; resolving from Maven Central…"
    (cd "$project" && mvn -B -q package >"$project/target-build.log" 2>&1) || {
      say "build failed; see $project/target-build.log" >&2
      tail -20 "$project/target-build.log" >&2
      exit 1
    }
  fi
  rm -f "$project/target-build.log"
fi

mkdir -p "$home/logs" "$home/tmp"
say "starting Elasticsearch (heap $heap, home $home, log $log)…"
start=$(date +%s)
# setsid: the node outlives this script and npm; stdin closed, output to the log.
setsid "$java_home/bin/java" \
  -Xms"$heap" -Xmx"$heap" \
  -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError \
  --enable-native-access=ALL-UNNAMED \
  --add-modules jdk.incubator.vector \
  -Djava.io.tmpdir="$home/tmp" \
  -Djava.locale.providers=CLDR \
  -Dlog4j2.disable.jmx=true \
  -Dlog4j2.formatMsgNoLookups=true \
  -Dio.netty.allocator.type=pooled \
  -Dio.netty.noUnsafe=true \
  -cp "$project/target/classes:$(cat "$project/target/classpath.txt")" \
  cita.es.LocalNode "$home" "$port" \
  </dev/null >"$log" 2>&1 &
pid=$!
echo "$pid" >"$pidfile"

until healthy; do
  if ! kill -0 "$pid" 2>/dev/null; then
    rm -f "$pidfile"
    say "the node exited during startup; last lines of $log:" >&2
    tail -30 "$log" >&2
    exit 1
  fi
  if (( $(date +%s) - start > timeout )); then
    say "no yellow health at $url after ${timeout}s; stopping pid $pid. Last lines of $log:" >&2
    tail -30 "$log" >&2
    kill "$pid" 2>/dev/null || true
    rm -f "$pidfile"
    exit 1
  fi
  sleep 1
done
say "ready in $(( $(date +%s) - start ))s (pid $pid); stop with \`npm run es:stop\`"
echo "$url"
