# a flag takes no value
$ tracediff compare a b --short-names=yes
? 2
! tracediff: compare: unknown option '--short-names=yes' (see 'tracediff compare --help')
