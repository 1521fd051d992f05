# an unknown option near a known one: did you mean
$ tracediff compare examples/control examples/test --devce gpu
? 2
! tracediff: compare: unknown option '--devce'; did you mean '--device'? (see 'tracediff compare --help')
