# check folds names that differ only by noise by default, and says so
$ tracediff check tests/data/noisy/control tests/data/noisy/test --control-iteration all --test-iteration all
? 3
> FAIL: 1 regression among 9 names (slower by >= 5%, q <= 0.05); 0 faster; samples per call (6 control, 2 test)
> note: names that differ only by addresses, line numbers, steps, graph hashes or Triton numbers are folded into one (--no-normalize-names keeps them apart)
>
> change [interval]                      q  control mean     test mean  name
> new (800 us)                           -             -           400  torch/optim/adam.py(…): step
! tracediff: note: control selects 6 (rank, iteration) samples and test 2: totals are not comparable
