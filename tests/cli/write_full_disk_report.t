# the HTML report on a full disk: one message, exit 1
$ tracediff report examples/control examples/test -o /dev/full
? 1
! tracediff: note: test: 614 GPU events with no launch found (no iteration) left out; see docs/numbers.md
! tracediff: /dev/full: cannot write the chart: No space left on device
