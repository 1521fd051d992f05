# a missing summary is a missing file, as a missing trace set is
$ tracediff runs tests/data/nosuch.tdsum
? 1
! tracediff: tests/data/nosuch.tdsum: No such file or directory
