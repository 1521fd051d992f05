# info counts a step once: the GPU copy of the ProfilerStep annotation is the same step
$ tracediff info tests/data/gpu_step -q
? 0
> set         tests/data/gpu_step
> files       1
> steps       5
> durations   whole us, as the traces write them (no decimal timestamps)
>
>   rank  comp      file_MB      json_MB      events     counted        cpu        gpu   steps  file / device
>      0  plain        0.00         0.00           5           5          4          1       1  tests/data/gpu_step/rank0.json
>
> counted events by category (compare --cat LIST keeps some; durations as compare has them)
>   category                           events         total us
>   cpu_op                                  1               50
>   cuda_runtime                            1               10
>   gpu_user_annotation                     1              100
>   kernel                                  1               20
>   user_annotation                         1              500
>
> GPU time by launching op (all events; docs/attribution.md)
>   gpu events                                          1             20 us
>   attributed to an op                                 1             20 us
