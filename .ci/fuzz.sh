#!/usr/bin/env bash
# Runs each fuzz target for a short bounded time (MCPDECL_FUZZTIME, default
# 10s); the first failure stops the run, and go test writes the input that
# failed under the package's testdata/fuzz. Run longer by hand with, say,
# MCPDECL_FUZZTIME=10m bash .ci/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${MCPDECL_FUZZTIME:-10s}
targets=(
  "./engine/load FuzzLoad"       # configuration text
  "./engine/load FuzzCall"       # arguments and upstream bodies through a whole call
  "./engine/schema FuzzValidate" # arguments against every type and constraint
  "./engine/schema FuzzQuick"    # the quick path never accepts what the full validator refuses
  "./engine FuzzCall"            # arbitrary action results through outputs and content
  "./engine FuzzSanitize"        # text from programs and upstreams
  "./engine FuzzSimpleMatcher"   # resource URIs against {name} templates
  "./adapters/http FuzzDecodeJSON" # upstream JSON bodies decode as encoding/json decodes them
)
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  echo "fuzzing $name in $pkg for $fuzztime"
  # A short minimization, so that the time goes to fuzzing.
  log=$(mktemp)
  if go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 3s "$pkg" 2>&1 | tee "$log"; then
    rm -f "$log"
    continue
  fi
  # On a loaded machine the fuzzing engine can miss its own deadline
  # ("context deadline exceeded") without any input failing: then, and only
  # when no failing input was written, run the target once more.
  if grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
    echo "fuzzing $name again: the fuzzing engine missed its deadline, no input failed"
    rm -f "$log"
    go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 3s "$pkg"
    continue
  fi
  rm -f "$log"
  exit 1
done
