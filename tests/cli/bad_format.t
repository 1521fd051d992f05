# an unknown format
$ tracediff compare a b --format yaml
? 2
! tracediff: --format 'yaml': expected table, csv, json, markdown or folded
