#!/usr/bin/env bash
# Copies this tool into a GradBench checkout as `tools/revad/`, the folder GradBench builds:
#
#   gradbench/export.sh /path/to/gradbench
#
# The copy is this folder less this script, the build output, and the `[patch.crates-io]` table
# of `Cargo.toml` (the library of this repository, which GradBench's tree does not have): there,
# `revad` comes from crates.io, or from the git repository named by the Dockerfile's build
# argument `REVAD_GIT`. Its `Cargo.lock` is then brought up to date against crates.io when
# `revad` is published there (this repository's lock names the library next to it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
gradbench="${1:?usage: $0 GRADBENCH_ROOT}"
if [ ! -d "$gradbench/tools" ] || [ ! -d "$gradbench/evals" ]; then
    echo "$gradbench is not a GradBench checkout (no tools/ and evals/ folders)" >&2
    exit 1
fi
dest="$gradbench/tools/revad"
rm -rf "$dest"
mkdir -p "$dest"
cp -R "$here/.gitignore" "$here/Cargo.lock" "$here/Dockerfile" "$here/README.md" \
    "$here/evals.txt" "$here/src" "$here/tests" "$dest/"
# Everything above the comment that introduces the patch (the manifest's last table).
awk '/^# In the `revad` repository, `revad` is the library/ { exit } { print }' \
    "$here/Cargo.toml" | sed '$ { /^$/d; }' >"$dest/Cargo.toml"
if grep -q '^\[patch' "$dest/Cargo.toml"; then
    echo "the patch is still in $dest/Cargo.toml" >&2
    exit 1
fi
# Resolving again keeps every other locked version.
if cargo fetch --manifest-path "$dest/Cargo.toml" 2>/dev/null; then
    echo "$dest: ready, revad from crates.io"
else
    echo "$dest: revad is not on crates.io yet; Cargo.lock still names the local library" \
        "(build the image with --build-arg REVAD_GIT=URL)" >&2
fi
