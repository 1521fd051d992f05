# an invalid regex
$ tracediff compare examples/control examples/test --include '('
? 2
! tracediff: --include '(': not a valid regular expression: missing closing parenthesis (at byte 1)
