# check --no-normalize-names: every name its own row, no note about folding
$ tracediff check tests/data/noisy/control tests/data/noisy/test --control-iteration all --test-iteration all --no-normalize-names
? 3
> FAIL: 3 regressions among 16 names (slower by >= 5%, q <= 0.05); 0 faster; samples per call (6 control, 2 test)
>
> change [interval]                      q  control mean     test mean  name
> new (6,000 us)                         -             -         3,000  torch/nn/modules/module.py(1527): _call_impl
> new (800 us)                           -             -           400  torch/optim/adam.py(1530): step
> new (100 us)                           -             -            50  <built-in method to of Tensor object at 0x7f11aa00ffe0>
! tracediff: note: control selects 6 (rank, iteration) samples and test 2: totals are not comparable
! tracediff: note: 4 names differ only by addresses or line numbers; --normalize-names folds them (--explain-names shows how)
