# rows by module need Python stacks: another profiler's output has none, and the
# message says so in the terms of the command, naming no library field
$ tracediff compare tests/golden/traces/profilers/rocprofv3-json/908_results.json.gz tests/golden/traces/profilers/rocprofv3-json/908_results.json.gz --by module
? 2
! tracediff: tests/golden/traces/profilers/rocprofv3-json/908_results.json.gz: no stacks: rows by module need the Python stacks of a PyTorch profiler trace, and this file (rocprofv3 JSON) has none
