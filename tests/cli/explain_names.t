# --explain-names: each folded name and the names it holds, with counts, instead of the rows
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --explain-names --control-iteration all --test-iteration all
? 0
> <built-in method to of Tensor object at 0x…>  (2 names; folded by addresses)
>   ← <built-in method to of Tensor object at 0x7f11aa00ffe0>  (control 0, test 2)
>   ← <built-in method to of Tensor object at 0x7f3a2c01b2e0>  (control 6, test 0)
> ProfilerStep#…  (6 names; folded by step numbers)
>   ← ProfilerStep#10  (control 1, test 0)
>   ← ProfilerStep#5  (control 1, test 0)
>   ← ProfilerStep#6  (control 1, test 0)
>   ← ProfilerStep#7  (control 1, test 1)
>   ← ProfilerStep#8  (control 1, test 1)
>   ← ProfilerStep#9  (control 1, test 0)
> torch/nn/modules/module.py(…): _call_impl  (2 names; folded by line numbers)
>   ← torch/nn/modules/module.py(1520): _call_impl  (control 6, test 0)
>   ← torch/nn/modules/module.py(1527): _call_impl  (control 0, test 2)
> 3 folded names hold 10 of 16 names
! tracediff: note: control selects 6 (rank, iteration) samples and test 2: totals are not comparable; --per-iteration divides by them
