# an unknown option
$ tracediff compare a b --frobnicate
? 2
! tracediff: compare: unknown option '--frobnicate' (see 'tracediff compare --help')
