# a rank list that is not numbers
$ tracediff compare a b --control-rank 1,x
? 2
! tracediff: --control-rank '1,x': expected N, N,M,... or all
