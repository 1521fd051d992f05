# a bad --exclude pattern is refused before any trace is opened
$ tracediff compare /nonexistent/a /nonexistent/b --exclude 'x['
? 2
! tracediff: --exclude 'x[': not a valid regular expression: missing terminating ] for character class (at byte 2)
