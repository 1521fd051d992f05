# an option without its value
$ tracediff compare a b --top
? 2
! tracediff: --top needs a value
