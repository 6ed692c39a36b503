#!/usr/bin/env bash
# Builds the Go bot ./pitch-go-bot offline (`build.sh test` also runs the kit's Go tests), from Debian's packages only (no Go module proxy):
# protoc with protoc-gen-go and protoc-gen-go-grpc generates gen/pitch/v1 from the repository's
# protos/ (or $PITCH_PROTOS), and `go build` runs in GOPATH mode over Debian's Go libraries in
# /usr/share/gocode (golang-google-grpc-dev, golang-google-protobuf-dev).
# Needs: apt-get install golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc \
#        golang-google-grpc-dev golang-google-protobuf-dev
set -euo pipefail
kit="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
protos="${PITCH_PROTOS:-$kit/../../protos}"
cd "$kit"

mapping=()
for file in bot game arena; do
  mapping+=("--go_opt=Mpitch/v1/$file.proto=pitchkit/gen/pitch/v1;pitchv1"
            "--go-grpc_opt=Mpitch/v1/$file.proto=pitchkit/gen/pitch/v1;pitchv1")
done
rm -rf gen && mkdir -p gen
protoc -I "$protos" --go_out=gen --go_opt=paths=source_relative \
  --go-grpc_out=gen --go-grpc_opt=paths=source_relative "${mapping[@]}" \
  pitch/v1/bot.proto pitch/v1/game.proto pitch/v1/arena.proto

# GOPATH mode: this kit is the package tree `pitchkit` (a link in .gopath), Debian's libraries the rest.
mkdir -p .gopath/src
ln -sfn "$kit" .gopath/src/pitchkit
export GO111MODULE=off GOPATH="$kit/.gopath:/usr/share/gocode" GOFLAGS="" GOCACHE="${GOCACHE:-$kit/.gopath/cache}"
go build -o pitch-go-bot pitchkit
echo "built $kit/pitch-go-bot" >&2
if [ "${1:-}" = test ]; then
  go test pitchkit/client
fi
