# trend: a missing summary is a missing file
$ tracediff trend tests/data/nosuch.tdsum#a
? 1
! tracediff: tests/data/nosuch.tdsum#a: No such file or directory
