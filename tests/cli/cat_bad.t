# --cat with an empty list
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --cat ,
? 2
! tracediff: --cat ',': expected categories, e.g. cpu_op,kernel (see 'tracediff info'; not with --no-python)
