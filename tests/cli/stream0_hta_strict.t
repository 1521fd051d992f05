# --hta-strict: HTA's own rule, stream-0 GPU events get no iteration, said on stderr
$ tracediff compare tests/data/amd_stream0.json tests/data/amd_stream0.json --device gpu --control-iteration 3 --test-iteration 4 --format csv --hta-strict
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
! tracediff: note: control: --hta-strict: 3 GPU events on stream 0 left out, as HTA does (the default gives them their launch's iteration); see docs/numbers.md
! tracediff: note: test: --hta-strict: 3 GPU events on stream 0 left out, as HTA does (the default gives them their launch's iteration); see docs/numbers.md
