# one positional argument only
$ tracediff compare a
? 2
! tracediff: compare: expected CONTROL and TEST (see 'tracediff compare --help')
