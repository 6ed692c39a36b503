#!/usr/bin/env bash
# Installs (once) what the starter kits' tests build and run the kits with: Node.js and npm for
# kits/node, Go, protoc and Debian's packaged gRPC/protobuf Go libraries for kits/go. Run by
# the README's test command; does nothing when everything is already there.
set -euo pipefail
packages=()
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)
command -v go >/dev/null 2>&1 || packages+=(golang-go)
command -v protoc >/dev/null 2>&1 || packages+=(protobuf-compiler)
command -v protoc-gen-go >/dev/null 2>&1 || packages+=(protoc-gen-go)
command -v protoc-gen-go-grpc >/dev/null 2>&1 || packages+=(protoc-gen-go-grpc)
[ -d /usr/share/gocode/src/google.golang.org/grpc ] || packages+=(golang-google-grpc-dev)
[ -d /usr/share/gocode/src/google.golang.org/protobuf ] || packages+=(golang-google-protobuf-dev)
# grpc-go's codec marshals through github.com/golang/protobuf: the 1.5 line (a bridge to the
# protobuf-go API protoc-gen-go writes for); apt's default choice, 1.3, cannot marshal such messages.
dpkg -s golang-github-golang-protobuf-1-5-dev >/dev/null 2>&1 || packages+=(golang-github-golang-protobuf-1-5-dev)
if [ ${#packages[@]} -eq 0 ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "the starter kits' tests need: ${packages[*]} (Debian package names): install them" >&2
  exit 1
fi
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "==> installing ${packages[*]} with apt-get (for the starter kits' tests)" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
