# --device: did you mean
$ tracediff compare examples/control examples/test --device gpx
? 2
! tracediff: --device 'gpx': expected all, cpu or gpu; did you mean 'gpu'?
