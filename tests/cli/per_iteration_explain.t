# explain reports one op's calls and times as totals: --per-iteration is refused
$ tracediff explain tests/data/noisy/control tests/data/noisy/test aten::mm --per-iteration
? 2
! tracediff: explain: --per-iteration does not apply to explain (see 'tracediff explain --help')
