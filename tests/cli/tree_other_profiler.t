# --match tree needs PyTorch profiler traces: another profiler's output has no
# call tree, and the message says so naming no library field
$ tracediff compare tests/golden/traces/profilers/rocprofv3-json/908_results.json.gz tests/golden/traces/profilers/rocprofv3-json/908_results.json.gz --match tree
? 2
! tracediff: tests/golden/traces/profilers/rocprofv3-json/908_results.json.gz: no call tree: --match tree needs PyTorch profiler trace files, and this file (rocprofv3 JSON) has none
