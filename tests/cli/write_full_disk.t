# a write that fails (a full disk) is one message naming the file, exit 1
$ tracediff compare examples/control examples/test --format csv -o /dev/full
? 1
! tracediff: note: test: 614 GPU events with no launch found (no iteration) left out; see docs/numbers.md
! tracediff: /dev/full: cannot write: No space left on device
