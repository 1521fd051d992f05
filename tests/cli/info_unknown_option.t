# info takes no selection options
$ tracediff info examples/control --device gpu
? 2
! tracediff: info: --device does not apply to info (see 'tracediff info --help')
