# ops --format json on a full disk: the writer's error, once
$ tracediff ops examples/control examples/test --format json -o /dev/full
? 1
! tracediff: note: test: 614 GPU events with no launch found (no iteration) left out; see docs/numbers.md
! tracediff: /dev/full: cannot write: No space left on device
