# info: categories with events and total time, for --cat
$ tracediff info tests/data/noisy/test
? 0
> set         tests/data/noisy/test
> files       1
> steps       7–8 (2)
> durations   whole us, as the traces write them (no decimal timestamps)
>
>   rank  comp      file_MB      json_MB      events     counted        cpu        gpu   steps  file / device
>      0  plain        0.00         0.00          19          19         17          2       2  tests/data/noisy/test/trace.json
>                                                                                               NVIDIA H100
>
> counted events by category (compare --cat LIST keeps some; durations as compare has them)
>   category                           events         total us
>   cpu_op                                  5             1550
>   cuda_runtime                            2               24
>   kernel                                  2              360
>   python_function                         6             6900
>   user_annotation                         4            18080
>
> GPU time by launching op (all events; docs/attribution.md)
>   gpu events                                          2            360 us
>   attributed to an op                                 2            360 us
