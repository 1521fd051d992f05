# --format: did you mean
$ tracediff compare examples/control examples/test --format jsn
? 2
! tracediff: --format 'jsn': expected table, csv, json or markdown; did you mean 'json'?
