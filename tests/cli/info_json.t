# info as json
$ tracediff info tests/golden/traces/hta-trace_compare/base --format json
? 0
> {"path": "tests/golden/traces/hta-trace_compare/base", "durations": "hta-rounded", "iterations": [1009, 1010], "files": [
>   {"path": "tests/golden/traces/hta-trace_compare/base/base.json.gz", "rank": 1, "compression": "gzip", "file_bytes": 1594, "json_bytes": 11239, "events_total": 33, "events_counted": 33, "events_cpu": 15, "events_gpu": 18, "events_stream0": 0, "events_no_launch": 16, "events_skipped": 0, "steps": 2, "rounded": false, "decimal_timestamps": false, "device": null}
> ], "categories": {"cpu_op": 6, "cuda_runtime": 5, "gpu_memcpy": 6, "gpu_memset": 6, "kernel": 6, "user_annotation": 4}, "category_us": {"cpu_op": 28, "cuda_runtime": 604, "gpu_memcpy": 1235, "gpu_memset": 27, "kernel": 432, "user_annotation": 222580}, "attribution": {"gpu_events": 18, "gpu_time": 1694, "attributed": 0, "attributed_time": 0, "unattributed": {"host event on a gpu stream": {"count": 0, "time": 0}, "no correlation id": {"count": 0, "time": 0}, "no launch found": {"count": 16, "time": 1686}, "launch outside any op": {"count": 2, "time": 8}}}}
