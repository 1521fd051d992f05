# info counts stream-0 GPU events and those with no launch
$ tracediff info tests/data/amd_stream0.json
? 0
> set         tests/data/amd_stream0.json
> files       1
> steps       3–4 (2)
> durations   whole us, as the traces write them (no decimal timestamps)
>
>   rank  comp      file_MB      json_MB      events     counted        cpu        gpu   steps  file / device
>      0  plain        0.00         0.00           8           8          5          3       2  tests/data/amd_stream0.json
>                                                                                               (3 GPU events on stream 0: their launch's iteration; none with --hta-strict)
>                                                                                               (1 GPU event with no launch found: no iteration)
>
> counted events by category (compare --cat LIST keeps some; durations as compare has them)
>   category                           events         total us
>   cpu_op                                  1               15
>   cuda_runtime                            2                9
>   gpu_memcpy                              1                3
>   kernel                                  2               42
>   user_annotation                         2              200
>
> GPU time by launching op (all events; docs/attribution.md)
>   gpu events                                          3             45 us
>   attributed to an op                                 1             40 us
>   unattributed: no launch found                       1              2 us
>   unattributed: launch outside any op                 1              3 us
