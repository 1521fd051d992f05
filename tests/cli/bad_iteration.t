# an unknown iteration lists the iterations that exist
$ tracediff compare tests/golden/traces/hta-trace_compare/base tests/golden/traces/hta-trace_compare/test --test-iteration 7
? 2
! tracediff: no such iteration 7; test has 1009, 1010
