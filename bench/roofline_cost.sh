#!/bin/sh
# The cost of roofline against a plain compare, in CPU time
# (bench/cost_vs_compare.sh). The target is at most 1.5.
#   bench/roofline_cost.sh [TRACEDIFF [CONTROL TEST [RUNS]]]
exec sh bench/cost_vs_compare.sh roofline roofline "" "$@"
