# a missing path is a data error, exit 1
$ tracediff compare /nonexistent/ctl tests/golden/traces/hta-trace_compare/test
? 1
! tracediff: /nonexistent/ctl: No such file or directory
