# ops -o x.md: a format ops does not write
$ tracediff ops tests/data/noisy/control tests/data/noisy/test -o x.md
? 2
! tracediff: --format 'markdown': expected table, csv or json
