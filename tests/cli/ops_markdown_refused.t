# ops -o x.md: a format ops does not write
$ tracediff ops tests/data/noisy/control tests/data/noisy/test -o x.md
? 2
! tracediff: ops: x.md: no ops writer for '.md': name the file .txt, .csv or .json, or give --format
