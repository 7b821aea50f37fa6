#!/bin/sh
# Builds the Java sample bot into build/: messages and the BotService stub generated from
# ../../proto by protoc and Debian's grpc-java plugin, compiled with javac against the jars Debian
# installs under /usr/share/java (no Maven, no Gradle, no network). Does nothing when neither the
# protos, the sources nor the libraries changed since the last build.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
PROTO=$(cd "$HERE/../.." && pwd)/proto
BUILD=$HERE/build
JARS=/usr/share/java
# What the bot needs at run time: gRPC over Netty (NIO), protobuf, and what they stand on.
LIBS="grpc-api grpc-context grpc-core grpc-netty grpc-protobuf grpc-protobuf-lite grpc-stub protobuf
guava perfmark-api gson netty-buffer netty-codec netty-codec-http netty-codec-http2 netty-codec-socks
netty-common netty-handler netty-handler-proxy netty-resolver netty-transport"

fail() { echo "build.sh: $*" >&2; exit 1; }
command -v protoc >/dev/null 2>&1 || fail "protoc is missing: apt-get install protobuf-compiler"
command -v javac >/dev/null 2>&1 || fail "javac is missing: apt-get install default-jdk-headless"
command -v jar >/dev/null 2>&1 || fail "jar is missing: apt-get install default-jdk-headless"
PLUGIN=$(command -v protoc-gen-grpc-java || command -v grpc_java_plugin || true)
[ -n "$PLUGIN" ] || fail "the grpc-java protoc plugin is missing: apt-get install protobuf-compiler-grpc-java-plugin"
[ -f "$PROTO/arena/v1/bot_service.proto" ] || fail "no proto/arena/v1/bot_service.proto beside sample_bots/"
# javax.annotation.Generated, which the grpc-java 1.41 plugin writes on the stub and Java 9+ no
# longer has (it is kept in the source only, so the bot needs it at compile time alone).
ANNOTATIONS=$JARS/geronimo-annotation-1.3-spec.jar
[ -f "$ANNOTATIONS" ] || fail "$ANNOTATIONS is missing: apt-get install libgeronimo-annotation-1.3-spec-java"
CLASSPATH=$ANNOTATIONS
for lib in $LIBS; do
  [ -f "$JARS/$lib.jar" ] || fail "$JARS/$lib.jar is missing: apt-get install $(tr '\n' ' ' <"$HERE/debian-packages.txt")"
  CLASSPATH="$CLASSPATH${CLASSPATH:+:}$JARS/$lib.jar"
done

# One build at a time: test runs (and people) may start it at once on one tree.
mkdir -p "$BUILD"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$BUILD/.lock"
  flock 9
fi

# The build's inputs: protos, sources, this script and the libraries' versions (the jars' real names).
STAMP=$( (cd "$PROTO" && find . -name '*.proto' | LC_ALL=C sort | xargs sha256sum;
  cd "$HERE" && find src -name '*.java' | LC_ALL=C sort | xargs sha256sum; sha256sum build.sh;
  for lib in $LIBS; do readlink -f "$JARS/$lib.jar"; done; javac -version 2>&1; protoc --version) | sha256sum)
if [ -f "$BUILD/stamp" ] && [ "$(cat "$BUILD/stamp")" = "$STAMP" ] && [ -f "$BUILD/arena-bot.jar" ]; then
  exit 0
fi

rm -rf "$BUILD/generated" "$BUILD/classes" "$BUILD/lib" "$BUILD/stamp"
mkdir -p "$BUILD/generated" "$BUILD/classes" "$BUILD/lib"
# The bot needs BotService and the messages; ArenaService (the people's API) is left out to keep
# the build short.
(cd "$PROTO" && protoc --plugin=protoc-gen-grpc-java="$PLUGIN" --java_out="$BUILD/generated" \
  --grpc-java_out="$BUILD/generated" arena/v1/messages.proto arena/v1/bot_service.proto)
find "$BUILD/generated" "$HERE/src" -name '*.java' >"$BUILD/sources.txt"
javac -nowarn -encoding UTF-8 --release 17 -cp "$CLASSPATH" -d "$BUILD/classes" @"$BUILD/sources.txt" 2>"$BUILD/javac.log" ||
  { cat "$BUILD/javac.log" >&2; fail "javac failed"; }
# Written aside, then renamed: a bot already running from build/ never reads half a jar.
jar --create --file "$BUILD/arena-bot.jar.new" --main-class org.thirteenarena.sample.SampleBot -C "$BUILD/classes" .
mv "$BUILD/arena-bot.jar.new" "$BUILD/arena-bot.jar"
# The libraries beside the bot, so that build/ is all a hosted package needs besides a Java runtime.
for lib in $LIBS; do cp "$(readlink -f "$JARS/$lib.jar")" "$BUILD/lib/$lib.jar"; done
echo "$STAMP" >"$BUILD/stamp"
