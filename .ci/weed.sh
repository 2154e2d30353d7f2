#!/usr/bin/env bash
# Builds SeaweedFS's `weed` (the S3-compatible server of tests/cli/records_s3.rs) from the
# Go module proxy into target/weed/weed. `go install` refuses the module (its go.mod has
# replace directives), so its source is downloaded and built in a copy.
set -euo pipefail
cd "$(dirname "$0")/.."
version=v0.0.0-20261109003541-7506e5f91cd6
out="$PWD/target/weed"
if [ -x "$out/weed" ]; then
    exit 0
fi
mkdir -p "$out"
dir=$(go mod download -json "github.com/seaweedfs/seaweedfs@$version" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')
rm -rf "$out/src"
cp -r "$dir" "$out/src"
chmod -R u+w "$out/src"
cd "$out/src/weed"
go build -o "$out/weed.tmp" .
mv "$out/weed.tmp" "$out/weed"
rm -rf "$out/src"
