# --format: did you mean
$ tracediff compare examples/control examples/test --format jsn
? 2
! tracediff: --format 'jsn': expected table, csv, json, markdown or folded; did you mean 'json'?
