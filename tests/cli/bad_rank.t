# an unknown rank lists the ranks that exist
$ tracediff compare tests/golden/traces/hta-two_ranks tests/golden/traces/hta-two_ranks --control-rank 5
? 2
! tracediff: no such rank 5; control has 0, 1
