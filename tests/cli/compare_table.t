# table: header naming both sides, aligned columns, ASCII-free bars under UTF-8
$ tracediff compare tests/golden/traces/hta-trace_compare/base tests/golden/traces/hta-trace_compare/test --format table --control-iteration all --test-iteration all
? 0
> control  tests/golden/traces/hta-trace_compare/base  rank 1  iterations 1009,1010  14 events
> test     tests/golden/traces/hta-trace_compare/test  rank 1  iterations 1009,1010  15 events
> device   all
> rows     by |diff_duration|, largest first (--sort to change)
>
>                                                                       control             test             diff
> name                                                          count  total µs  count  total µs  count  total µs   change
> All2All_Pooled_Req                                                0         0      1       311      1       311      new
> AddmmBackward0                                                    0         0      1       207      1       207      new
> nccl:all_reduce                                                   2       133      1        66     -1       -67     -50%
> CatBackward0                                                      0         0      1        11      1        11      new
> void at::native::vector…d<int>, at::detail::Array<char*, 3>)      2         8      1         4     -1        -4     -50%
> ProfilerStep#1009                                                 1   100,298      1   100,298      0         0      +0%
> ProfilerStep#1010                                                 1   122,149      1   122,149      0         0      +0%
> aten::as_strided                                                  2         0      2         0      0         0         
> aten::empty                                                       2         2      2         2      0         0      +0%
> cudaEventQuery                                                    2        14      2        14      0         0      +0%
> cudaLaunchKernel                                                  2         8      2         8      0         0      +0%
! tracediff: note: control: 16 GPU events with no launch found (no iteration) left out; see docs/numbers.md
! tracediff: note: test: 16 GPU events with no launch found (no iteration) left out; see docs/numbers.md
