# an unknown command is a usage error
$ tracediff frobnicate
? 2
! tracediff: unknown command 'frobnicate' (see 'tracediff --help')
