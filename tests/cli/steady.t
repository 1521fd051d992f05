# --control-iteration steady: every iteration but the lowest (6..10)
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --control-iteration steady --test-iteration steady --format table
? 0
> control  tests/data/noisy/control  rank 0  iterations 6,7,8,9,10  43 events
> test     tests/data/noisy/test  rank 0  iteration 8  10 events
> device   all
> rows     by |diff_duration|, largest first (--sort to change)
> note     4 names differ only by addresses or line numbers; --normalize-names folds them
>
>                                                                       control             test             diff
> name                                                          count  total µs  count  total µs  count  total µs   change
> torch/nn/modules/module.py(1520): _call_impl                      5    15,000      0         0     -5   -15,000     gone
> ProfilerStep#10                                                   1     9,000      0         0     -1    -9,000     gone
> ProfilerStep#6                                                    1     9,000      0         0     -1    -9,000     gone
> ProfilerStep#7                                                    1     9,000      0         0     -1    -9,000     gone
> ProfilerStep#9                                                    1     9,000      0         0     -1    -9,000     gone
> torch/nn/modules/module.py(1527): _call_impl                      0         0      1     3,000      1     3,000      new
> aten::mm                                                          5     3,500      1       700     -4    -2,800     -80%
> void at::native::vector…float>, at::detail::Array<char*, 3>)      5       750      1       180     -4      -570     -76%
> aten::copy_                                                      10       500      2       100     -8      -400     -80%
> torch/optim/adam.py(1530): step                                   0         0      1       400      1       400      new
> <built-in method to of Tensor object at 0x7f3a2c01b2e0>           5       250      0         0     -5      -250     gone
> aten::zeros                                                       3        90      1        30     -2       -60     -67%
> <built-in method to of Tensor object at 0x7f11aa00ffe0>           0         0      1        50      1        50      new
> cudaLaunchKernel                                                  5        60      1        12     -4       -48     -80%
> ProfilerStep#8                                                    1     9,000      1     9,000      0         0      +0%
! tracediff: note: control selects 5 (rank, iteration) samples and test 1: totals are not comparable; --per-iteration divides by them
