# an unknown command near a known one: did you mean
$ tracediff comapre examples/control examples/test
? 2
! tracediff: unknown command 'comapre'; did you mean 'compare'? (see 'tracediff --help')
