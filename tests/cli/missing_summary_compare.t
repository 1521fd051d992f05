# compare: a missing summary as a side is a missing file
$ tracediff compare tests/data/nosuch.tdsum examples/control
? 1
! tracediff: tests/data/nosuch.tdsum: No such file or directory
