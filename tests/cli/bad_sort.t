# an unknown sort column
$ tracediff compare examples/control examples/test --sort bogus
? 2
! tracediff: --sort 'bogus': no such column (try name, diff_duration, diff_counts, abs_diff_duration, control_counts, ...)
