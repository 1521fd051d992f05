# info: consecutive steps as a range with their count
$ tracediff info tests/data/noisy/control
? 0
> set         tests/data/noisy/control
> files       1
> steps       5–10 (6)
>
>   rank  comp      file_MB      json_MB      events     counted        cpu        gpu   steps  file / device
>      0  plain        0.01         0.01          51          51         45          6       6  tests/data/noisy/control/trace.json
>                                                                                               NVIDIA H100
>
> counted events by category
>   cpu_op                                 15
>   cuda_runtime                            6
>   kernel                                  6
>   python_function                        12
>   user_annotation                        12
