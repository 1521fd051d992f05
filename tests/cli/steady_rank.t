# steady is for iterations only
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --control-rank steady
? 2
! tracediff: --control-rank 'steady': expected N, N,M,... or all (steady is for iterations)
