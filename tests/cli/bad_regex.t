# an invalid regex: refused before the traces are read (no note about them)
$ tracediff compare examples/control examples/test --include '('
? 2
! tracediff: --include '(': not a valid regular expression: missing closing parenthesis (at byte 1)
