#!/usr/bin/env bash
# `pip install ./python` works as the README says: into a fresh virtual environment (Debian's Python is
# externally managed), offline, and the installed package renders from another folder.
# Usage: pip_install_test.sh PYTHON SOURCE_DIR WORK_DIR   (RADIANT_LIBRARY: the libradiant.so to package)
set -euo pipefail
python=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$python" -m venv --system-site-packages "$work/venv"
# A copy of python/, so the test leaves the checkout as it was.
cp -r "$src/python" "$work/pkg" && rm -rf "$work/pkg/radiant/libradiant.so" "$work/pkg/build"
"$work/venv/bin/pip" install --quiet --no-index --no-build-isolation --no-deps "$work/pkg"
cd "$work"
env -u RADIANT_LIBRARY -u PYTHONPATH "$work/venv/bin/python" - <<'PY'
import os, radiant
import radiant._lib as l
assert os.path.dirname(l.__file__).endswith("site-packages/radiant"), l.__file__
scene, cam = radiant.Scene.bench(5000, width=64, height=48)
img = scene.render(cam, "cpu")
assert img.shape == (48, 64, 3) and img.max() > 0
print("installed:", radiant.version(), "from", os.path.dirname(l.__file__))
PY
