# --per-iteration in the table: the header says what each side was divided by
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --control-iteration all --test-iteration all --per-iteration --normalize-names --format table -q
? 0
> control  tests/data/noisy/control  rank 0  iterations 5,6,7,8,9,10  51 events
> test     tests/data/noisy/test  rank 0  iterations 7,8  19 events
> device   all  (normalized names)
> per      (rank, iteration) sample: counts and durations divided by 6 (control) and 2 (test)
> rows     by |diff_duration|, largest first (--sort to change)
>
>                                                                       control             test             diff
> name                                                          count  total µs  count  total µs  count  total µs   change
> torch/optim/adam.py(…): step                                      0         0      1       400      1       400      new
> void at::native::vector…float>, at::detail::Array<char*, 3>)      1       150      1       180      0        30     +20%
> <built-in method to of Tensor object at 0x…>                      1        50      1        50      0         0      +0%
> ProfilerStep#…                                                    1     9,000      1     9,000      0         0      +0%
> aten::copy_                                                       2       100      2       100      0         0      +0%
> aten::mm                                                          1       700      1       700      0         0      +0%
> aten::zeros                                                     0.5        15    0.5        15      0         0      +0%
> cudaLaunchKernel                                                  1        12      1        12      0         0      +0%
> torch/nn/modules/module.py(…): _call_impl                         1     3,000      1     3,000      0         0      +0%
