#!/bin/sh
# Runs the built Java sample bot (./build.sh first):
#   ./run.sh --server HOST:PORT --token atb_... [--games friday13,amigo13,board13] [--max-matches N]
#            [--matches N] [--ladder]
# ARENA_SERVER and ARENA_TOKEN may replace --server and --token; unix:PATH dials a Unix socket.
#
# The JVM is sized to start inside a hosted bot's sandbox, whose every process may reserve at most
# 1 GiB of address space: a small heap, one GC thread (serial), C1 only (quicker to start, and no
# C2 compiler threads), small code cache, metaspace and class space, and glibc held to two malloc
# arenas (each arena reserves 64 MiB per thread otherwise). Netty likewise keeps one pool.
HERE=$(cd "$(dirname "$0")" && pwd)
JAR=$HERE/build/arena-bot.jar
[ -f "$JAR" ] || { echo "run.sh: $JAR is missing: run $HERE/build.sh first" >&2; exit 1; }
command -v java >/dev/null 2>&1 || { echo "run.sh: java is missing: apt-get install default-jre-headless" >&2; exit 1; }
CLASSPATH=$JAR
for lib in "$HERE"/build/lib/*.jar; do CLASSPATH=$CLASSPATH:$lib; done
export MALLOC_ARENA_MAX=2
exec java -Xms16m -Xmx96m -Xss512k -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 \
  -XX:ReservedCodeCacheSize=32m -XX:MaxMetaspaceSize=64m -XX:CompressedClassSpaceSize=32m \
  -XX:MaxDirectMemorySize=64m -XX:-UsePerfData -Xshare:auto \
  -Dio.netty.allocator.numDirectArenas=1 -Dio.netty.allocator.numHeapArenas=1 \
  -Dio.netty.machineId=00:00:00:00:00:00:00:01 -cp "$CLASSPATH" org.thirteenarena.sample.SampleBot "$@"
