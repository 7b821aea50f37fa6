#!/bin/sh
# Builds the C++ sample bot into build/bot from bot.cc and ../../proto. Idempotent: make rebuilds
# only what changed, so a second run takes well under a second.
set -eu
cd "$(dirname "$0")"
for tool in make g++ pkg-config protoc grpc_cpp_plugin; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "build.sh: $tool is missing; install the packages in sample_bots/cpp/debian-packages.txt" >&2
    exit 1
  }
done
pkg-config --exists grpc++ protobuf || {
  echo "build.sh: pkg-config finds no grpc++ or protobuf; install libgrpc++-dev and libprotobuf-dev" >&2
  exit 1
}
# One build at a time: test runs (and people) may start it at once on one tree.
mkdir -p build
if command -v flock >/dev/null 2>&1; then
  exec 9>build/.lock
  flock 9
fi
exec make --no-print-directory -s -j"${BUILD_JOBS:-2}" build/bot
