# a usage error is found before any trace is opened: the bad --sort, not the missing files
$ tracediff compare /nonexistent/a /nonexistent/b --sort bogus
? 2
! tracediff: --sort 'bogus': no such column (try name, diff_duration, diff_counts, abs_diff_duration, control_counts, ...)
