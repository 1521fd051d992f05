# a hand-built AMD-style trace: hipLaunchKernel in step 3, its kernel on stream 0
# running in step 4's time: the kernel takes the launch's iteration (spec §3.2)
$ tracediff compare tests/data/amd_stream0.json tests/data/amd_stream0.json --device gpu --control-iteration 3 --test-iteration 4 --format csv
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> Cijk_Ailk_Bljk_HHS_BH_MT128x128x32,1,40,0,0,-1,-40,-
> Memcpy DtoH,0,0,1,3,1,3,+
! tracediff: note: control: 1 GPU event with no launch found (no iteration) left out; see docs/numbers.md
! tracediff: note: test: 1 GPU event with no launch found (no iteration) left out; see docs/numbers.md
