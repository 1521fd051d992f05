# check compares per-sample means already: --per-iteration is refused by the option table
$ tracediff check tests/data/noisy/control tests/data/noisy/test --per-iteration
? 2
! tracediff: check: --per-iteration does not apply to check (see 'tracediff check --help')
