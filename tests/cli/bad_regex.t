# an invalid regex
$ tracediff compare examples/control examples/test --include '('
? 2
! tracediff: note: test: 614 GPU events with no launch found (no iteration) left out; see docs/numbers.md
! tracediff: --include '(': not a valid regular expression: missing closing parenthesis (at byte 1)
