# ops refuses --short-names (it always lists full names)
$ tracediff ops tests/data/noisy/control tests/data/noisy/test --short-names
? 2
! tracediff: ops: --short-names does not apply to ops (see 'tracediff ops --help')
