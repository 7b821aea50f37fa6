#!/bin/sh
# Builds the Go sample bot into build/bot from bot.go, the SDK in arenasdk/ and ../../proto, in
# GOPATH mode from the Go sources Debian installs under /usr/share/gocode (no module download, no
# network). Idempotent: when the protos, the Go sources, this script and the Go version are
# unchanged it exits at once.
set -eu
cd "$(dirname "$0")"
here="$(pwd)"
build="$here/build"
debian=/usr/share/gocode
for tool in go protoc protoc-gen-go-grpc sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "build.sh: $tool is missing; install the packages in sample_bots/go/debian-packages.txt" >&2
    exit 1
  }
done
for source in google.golang.org/grpc google.golang.org/protobuf/cmd/protoc-gen-go; do
  [ -d "$debian/src/$source" ] || {
    echo "build.sh: $debian/src/$source is missing; install the packages in sample_bots/go/debian-packages.txt" >&2
    exit 1
  }
done
# One build at a time: test runs (and people) may start it at once on one tree.
mkdir -p "$build"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$build/.lock"
  flock 9
fi
stamp="$( (go version; cat ../../proto/arena/v1/messages.proto ../../proto/arena/v1/bot_service.proto bot.go arenasdk/*.go build.sh) | sha256sum)"
if [ -x "$build/bot" ] && [ "$(cat "$build/stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi
# Go's own build cache (in the home directory) keeps the compiled gRPC and protobuf packages for the
# next checkout too; without a home directory, one of this tree's own.
cache="$(go env GOCACHE 2>/dev/null || true)"
case "$cache" in ''|off) cache="$build/gocache" ;; esac
export GO111MODULE=off GOPATH="$build/gopath:$debian" GOCACHE="$cache" GOFLAGS= CGO_ENABLED=0
mkdir -p "$build/bin"
# Debian's /usr/bin/protoc-gen-go is the old 1.3 generator, which cannot generate proto3
# `optional` fields: build the current one from Debian's google.golang.org/protobuf sources.
[ -x "$build/bin/protoc-gen-go" ] || go build -o "$build/bin/protoc-gen-go" google.golang.org/protobuf/cmd/protoc-gen-go
out="$build/gopath/src"
rm -rf "$out/github.com/thirteen-arena"
mkdir -p "$out"
protoc -I../../proto --plugin=protoc-gen-go="$build/bin/protoc-gen-go" --go_out="$out" \
  arena/v1/messages.proto arena/v1/bot_service.proto
# protoc-gen-go-grpc only for the service file: messages.proto has no service.
protoc -I../../proto --go-grpc_out="$out" arena/v1/bot_service.proto
# The SDK under its import path, beside the generated code.
sdk="$out/github.com/thirteen-arena/arena/sample_bots/go/arenasdk"
mkdir -p "$sdk"
cp arenasdk/*.go "$sdk/"
go build -trimpath -ldflags "-s -w" -o "$build/bot" bot.go
echo "$stamp" > "$build/stamp"
