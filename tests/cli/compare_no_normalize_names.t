# compare stays HTA-exact: --no-normalize-names is not one of its options
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --no-normalize-names
? 2
! tracediff: compare: --no-normalize-names does not apply to compare (see 'tracediff compare --help')
