# device must be all, cpu or gpu
$ tracediff compare a b --device tpu
? 2
! tracediff: --device 'tpu': expected all, cpu or gpu; did you mean 'cpu'?
