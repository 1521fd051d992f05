# info takes no selection options
$ tracediff info examples/control --device gpu
? 2
! tracediff: info: unknown option '--device' (see 'tracediff info --help')
