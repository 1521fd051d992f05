# info: ranks, iterations, files, categories
$ tracediff info tests/golden/traces/hta-two_ranks
? 0
> set         tests/golden/traces/hta-two_ranks
> files       2
> steps       551–552 (2)
> durations   whole us, as the traces write them (no decimal timestamps)
>
>   rank  comp      file_MB      json_MB      events     counted        cpu        gpu   steps  file / device
>      0  gzip         0.12         1.76        4855        4810       3606       1204       2  tests/golden/traces/hta-two_ranks/sampled_rank-0.json.gz
>      1  gzip         0.12         1.69        4720        4675       3521       1154       2  tests/golden/traces/hta-two_ranks/sampled_rank-1.json.gz
>
> counted events by category (compare --cat LIST keeps some; durations as compare has them)
>   category                           events         total us
>   cpu_op                               4631          1538462
>   cuda_runtime                         2358            20652
>   gpu_memcpy                             80            17770
>   gpu_memset                             20               59
>   kernel                               2258          1257545
>   user_annotation                       138          6369763
>
> GPU time by launching op (all events; docs/attribution.md)
>   gpu events                                       2358        1275374 us
>   attributed to an op                              2326        1274103 us
>   unattributed: launch outside any op                32           1271 us
