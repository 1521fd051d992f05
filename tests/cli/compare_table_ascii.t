# table under LANG=C would use ASCII; here: long names cut with an ellipsis
$ tracediff compare examples/control examples/test --format table --sort abs_diff_duration --top 8
? 0
> control  examples/control  rank 3  iteration 1009  12101 events
> test     examples/test  rank 1  iteration 1009  11187 events
> device   all
>
>                                         control             test             diff
> name                            count  total µs  count  total µs  count  total µs  +/-   change
> cudaMemcpyAsync                    38    10,190    802    40,994    764    30,804    +    +302% +██████████
> aten::_local_scalar_dense           5     4,819      5    32,448      0    27,629    =    +573% +██████████
> aten::item                          5     4,826      5    32,455      0    27,629    =    +573% +██████████
> ## sparse_data_dist ##              1    10,246      1    36,898      0    26,652    =    +260% +██████████
> ProfilerStep#1009                   1    75,473      1   100,298      0    24,825    =     +33% +███▎
> Memcpy DtoD (Device -> Device)      3       455    768    15,355    765    14,900    +   +3275% +██████████
> ## all2all_tw_data:init ##          1     8,230      1    21,729      0    13,499    =    +164% +██████████
> CompiledFunction                    0         0      1    11,168      1    11,168    +      new +██████████
! tracediff: note: test: 614 GPU events with no launch found (no iteration) left out; see docs/numbers.md
