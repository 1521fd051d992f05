# noisy names: the table's header counts them and names the option; table sorted by |diff_duration|
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --format table
? 0
> control  tests/data/noisy/control  rank 0  iteration 5  8 events
> test     tests/data/noisy/test  rank 0  iteration 7  9 events
> device   all
> rows     by |diff_duration|, largest first (--sort to change)
> note     4 names differ only by addresses or line numbers; --normalize-names folds them
>
>                                                                       control             test             diff
> name                                                          count  total µs  count  total µs  count  total µs   change
> ProfilerStep#5                                                    1     9,000      0         0     -1    -9,000     gone
> ProfilerStep#7                                                    0         0      1     9,000      1     9,000      new
> torch/nn/modules/module.py(1520): _call_impl                      1     3,000      0         0     -1    -3,000     gone
> torch/nn/modules/module.py(1527): _call_impl                      0         0      1     3,000      1     3,000      new
> torch/optim/adam.py(1530): step                                   0         0      1       400      1       400      new
> <built-in method to of Tensor object at 0x7f11aa00ffe0>           0         0      1        50      1        50      new
> <built-in method to of Tensor object at 0x7f3a2c01b2e0>           1        50      0         0     -1       -50     gone
> void at::native::vector…float>, at::detail::Array<char*, 3>)      1       150      1       180      0        30     +20%
> aten::copy_                                                       2       100      2       100      0         0      +0%
> aten::mm                                                          1       700      1       700      0         0      +0%
> cudaLaunchKernel                                                  1        12      1        12      0         0      +0%
