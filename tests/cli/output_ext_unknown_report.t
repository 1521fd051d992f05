# report: the same, with its own extensions
$ tracediff report examples/control examples/test -o tests/data/out.pdf
? 2
! tracediff: report: tests/data/out.pdf: no report writer for '.pdf': name the file .html or .htm, or give --format
