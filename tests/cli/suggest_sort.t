# --sort: did you mean
$ tracediff compare examples/control examples/test --sort diff_duraton
? 2
! tracediff: --sort 'diff_duraton': no such column; did you mean 'diff_duration'?
