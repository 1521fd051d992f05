# table under LANG=C would use ASCII; here: long names cut with an ellipsis
$ tracediff compare examples/control examples/test --format table --sort abs_diff_duration --top 8
? 0
> control  examples/control  rank 3  iteration 1009  12101 events
> test     examples/test  rank 1  iteration 1009  11187 events
> device   all
>
>                                         control             test             diff
> name                            count  total µs  count  total µs  count  total µs  +/-   change
> cudaMemcpyAsync                    38     10190    802     40994    764     30804    +    +302% +██████████
> aten::_local_scalar_dense           5      4819      5     32448      0     27629    =    +573% +██████████
> aten::item                          5      4826      5     32455      0     27629    =    +573% +██████████
> ## sparse_data_dist ##              1     10246      1     36898      0     26652    =    +260% +██████████
> ProfilerStep#1009                   1     75473      1    100298      0     24825    =     +33% +███▎
> Memcpy DtoD (Device -> Device)      3       455    768     15355    765     14900    +   +3275% +██████████
> ## all2all_tw_data:init ##          1      8230      1     21729      0     13499    =    +164% +██████████
> CompiledFunction                    0         0      1     11168      1     11168    +      new +██████████
! tracediff: note: test: 614 GPU events with no launch found (no iteration) left out; see docs/numbers.md
