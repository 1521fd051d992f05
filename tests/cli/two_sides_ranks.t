# pooled ranks, iteration lists
$ tracediff compare tests/golden/traces/hta-two_ranks tests/golden/traces/hta-trace_compare/test --control-rank all --control-iteration all --test-iteration 1010,1011 --sort abs_diff_counts --top 4
? 2
! tracediff: no such iteration 1011; test has 1009, 1010
