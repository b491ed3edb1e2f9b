#!/bin/bash
# Runs validate/validate_test.mjs (node's test runner) on the manifests named
# in "$@". The npm packages live in validate/node_modules of the source tree
# (node resolves the runfile symlinks to it); tools/setup.sh installs them.
set -euo pipefail
here=$(dirname "$(readlink -f deploy/kubernetes/validate/validate.mjs)")
for p in kubernetes-models @kubernetes-models/prometheus-operator @kubernetes-models/cert-manager yaml; do
  if [[ ! -f "${here}/node_modules/${p}/package.json" ]]; then
    echo "manifests_test: npm package ${p} is not installed in ${here}/node_modules; run tools/setup.sh" >&2
    exit 1
  fi
done
manifests=()
for f in "$@"; do manifests+=("$(readlink -f "$f")"); done
MANIFESTS="${manifests[*]}" exec node --test "${here}/validate_test.mjs"
