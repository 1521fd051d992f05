# nothing near: no guess
$ tracediff compare examples/control examples/test --frobnicate
? 2
! tracediff: compare: unknown option '--frobnicate' (see 'tracediff compare --help')
