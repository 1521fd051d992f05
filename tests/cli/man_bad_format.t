# man's formats are roff, usage and tsv
$ tracediff man --format html
? 2
! tracediff: --format 'html': expected roff, usage or tsv
