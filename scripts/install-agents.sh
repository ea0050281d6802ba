#!/usr/bin/env bash
# Install the pinned agent CLIs from the npm registry into .agents/ (ignored by git), reusing
# what is already there. proctor finds CLIs installed here without any PATH change.
# Usage: scripts/install-agents.sh [DIR]     (also: proctor agents install)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="${1:-.agents}"
PINS="$(dirname "$0")/agent-versions.txt"
command -v npm >/dev/null || { echo "install-agents: npm not found; agent CLIs not installed" >&2; exit 3; }
mkdir -p "$DIR"
missing=()
while read -r pkg version; do
  [[ -z "$pkg" || "$pkg" == \#* ]] && continue
  have=""
  if [[ -f "$DIR/node_modules/$pkg/package.json" ]]; then
    have="$(node -p "require('./$DIR/node_modules/$pkg/package.json').version" 2>/dev/null || true)"
  fi
  if [[ "$have" != "$version" ]]; then missing+=("$pkg@$version"); fi
done < "$PINS"
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-agents: pinned CLIs already present in $DIR"
  exit 0
fi
echo "install-agents: installing ${missing[*]} into $DIR"
npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error --foreground-scripts "${missing[@]}"
