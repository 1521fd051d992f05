# the terminal table written to a full disk: one message, exit 1
$ tracediff compare examples/control examples/test --format table -o /dev/full
? 1
! tracediff: note: test: 614 GPU events with no launch found (no iteration) left out; see docs/numbers.md
! tracediff: /dev/full: cannot write: No space left on device
