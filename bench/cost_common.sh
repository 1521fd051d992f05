# Sourced by the cost scripts (cost_vs_compare.sh, breakdown_cost.sh):
# RS, runstat beside the tracediff B (built when missing), and DC/DT, the
# default pair: bench/out/inputs' 4x plain pair when made, else the largest
# bundled pair. Needs B set.
RS=$(dirname "$B")/runstat
[ -x "$RS" ] || ${CC:-cc} -O2 -std=c11 -D_DEFAULT_SOURCE -o "$RS" bench/runstat.c
if [ -f bench/out/inputs/control-x4.json ]; then
    DC=bench/out/inputs/control-x4.json DT=bench/out/inputs/test-x4.json
else
    DC=tests/golden/traces/hta-trace_diff/control DT=tests/golden/traces/hta-trace_diff/test
fi
