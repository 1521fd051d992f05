# a pattern that backtracks without end is cut off, not waited for
$ tracediff compare examples/control examples/test --include '^(\w|\w\w)+$'
? 2
! tracediff: note: test: 614 GPU events with no launch found (no iteration) left out; see docs/numbers.md
! tracediff: --include '^(\w|\w\w)+$': the regex engine gave up on a name of 52 bytes: match limit exceeded; write the pattern with less backtracking
