# asking a set without steps for an iteration
$ tracediff compare tests/golden/traces/hta-no_steps tests/golden/traces/hta-trace_compare/test --control-iteration 3
? 2
! tracediff: no such iteration 3: control has no ProfilerStep (leave the iteration out to compare whole traces)
