#!/usr/bin/env bash
# Issue 19 item 14: `radiant view` works from any copy of the binary — the viewer modules are built in, so a
# radiant copied elsewhere, with no source tree or node_modules to find, writes the same page.
# Usage: view_anywhere.sh RADIANT SCENE MODULES_DIR WORK_DIR
set -euo pipefail
radiant=$1 scene=$2 modules=$3 work=$4
rm -rf "$work" && mkdir -p "$work/bin" "$work/elsewhere"
cp "$radiant" "$work/bin/radiant"
cd "$work/elsewhere"
RADIANT_VIEWER_MODULES=/nonexistent "$work/bin/radiant" view "$scene" -o page >view.log 2>&1 ||
  { cat view.log; echo "FAIL: radiant view from a copied binary"; exit 1; }
check() { cmp -s "$modules/$1" "page/lib/$2" || { echo "FAIL: page/lib/$2 differs from $1"; exit 1; }; }
check three/build/three.module.js three.module.js
check three/build/three.core.js three.core.js
check three/examples/jsm/controls/OrbitControls.js addons/controls/OrbitControls.js
check three/examples/jsm/postprocessing/Pass.js addons/postprocessing/Pass.js
check @sparkjsdev/spark/dist/spark.module.js spark.module.js
[ -s page/index.html ] && [ -s page/scene.ply ] || { echo "FAIL: page incomplete"; exit 1; }
echo "view from a copied binary: ok"
