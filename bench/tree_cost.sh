#!/bin/sh
# The cost of compare --match tree against a plain compare, in CPU time
# (bench/cost_vs_compare.sh). The target is under 2 (docs/tree-match.md).
#   bench/tree_cost.sh [TRACEDIFF [CONTROL TEST [RUNS]]]
exec sh bench/cost_vs_compare.sh "--match tree" compare "--match tree" "$@"
