# -q is accepted by every command: runs
$ tracediff runs tests/data/nosuch.tdsum -q
? 1
! tracediff: tests/data/nosuch.tdsum: No such file or directory
