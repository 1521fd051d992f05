# info: consecutive steps as a range with their count
$ tracediff info tests/data/noisy/control
? 0
> set         tests/data/noisy/control
> files       1
> steps       5–10 (6)
> durations   whole us, as the traces write them (no decimal timestamps)
>
>   rank  comp      file_MB      json_MB      events     counted        cpu        gpu   steps  file / device
>      0  plain        0.01         0.01          51          51         45          6       6  tests/data/noisy/control/trace.json
>                                                                                               NVIDIA H100
>
> counted events by category (compare --cat LIST keeps some; durations as compare has them)
>   category                           events         total us
>   cpu_op                                 15             4650
>   cuda_runtime                            6               72
>   kernel                                  6              900
>   python_function                        12            18300
>   user_annotation                        12            54240
>
> GPU time by launching op (all events; docs/attribution.md)
>   gpu events                                          6            900 us
>   attributed to an op                                 6            900 us
