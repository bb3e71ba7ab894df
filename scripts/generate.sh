#!/usr/bin/env bash
# Builds everything derived from openapi/ into the folder given (default: generated/).
# `make generate` writes generated/; `make check-generated` writes a temporary folder and compares.
set -euo pipefail
out=${1:-generated}
bin=node_modules/.bin
mkdir -p "$out"
"$bin/redocly" lint --config openapi/redocly.yaml --format=summary openapi/openapi.yaml >/dev/null 2>&1 || { "$bin/redocly" lint --config openapi/redocly.yaml openapi/openapi.yaml; exit 1; }
"$bin/redocly" bundle --config openapi/redocly.yaml openapi/openapi.yaml -o "$out/openapi.bundled.yaml" >/dev/null 2>&1
"$bin/openapi-typescript" "$out/openapi.bundled.yaml" -o "$out/openapi.d.ts" --default-non-nullable false >/dev/null
rm -rf "$out/client"
# @hey-api reads a bare path as a registry name, so the input must start with ./ (TOOLCHAIN.md).
case "$out" in /*) input="$out/openapi.bundled.yaml" ;; *) input="./$out/openapi.bundled.yaml" ;; esac
"$bin/openapi-ts" -i "$input" -o "$out/client" -c @hey-api/client-fetch >/dev/null
