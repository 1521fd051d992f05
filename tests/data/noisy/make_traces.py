#!/usr/bin/env python3
"""Writes control/trace.json and test/trace.json: small traces whose names
differ only by noise (addresses, Python line numbers, step numbers), with
different numbers of iterations per side and a name under two categories.
Used by tests/cli/noisy_*.t, per_iteration*.t, cat_*.t and ops_*.t."""
import json, os

KERNEL = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
          "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
          "at::detail::Array<char*, 3>)")


def side(steps, line, addr, kdur, extra):
    ev, corr = [], 100
    for k in steps:
        t = 10000 * k
        x = lambda cat, name, ts, dur, **a: ev.append(
            {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur,
             **({"args": a} if a else {})})
        x("user_annotation", f"ProfilerStep#{k}", t, 9000)
        x("python_function", f"torch/nn/modules/module.py({line}): _call_impl", t + 10, 3000)
        x("python_function", f"<built-in method to of Tensor object at {addr}>", t + 20, 50)
        x("user_annotation", "aten::copy_", t + 30, 40)
        x("cpu_op", "aten::copy_", t + 100, 60)
        x("cpu_op", "aten::mm", t + 200, 700)
        corr += 1
        x("cuda_runtime", "cudaLaunchKernel", t + 300, 12, correlation=corr)
        ev.append({"ph": "X", "cat": "kernel", "name": KERNEL, "pid": 0, "tid": 7,
                   "ts": t + 400, "dur": kdur, "args": {"stream": 7, "correlation": corr,
                                                        "device": 0}})
        if k % 2 == 0:  # every other step: 0.5 a step with --per-iteration
            x("cpu_op", "aten::zeros", t + 900, 30)
        if extra:
            x("python_function", f"torch/optim/adam.py({line + 3}): step", t + 5000, 400)
    return {"distributedInfo": {"rank": 0},
            "deviceProperties": [{"id": 0, "name": "NVIDIA H100"}], "traceEvents": ev}


here = os.path.dirname(os.path.abspath(__file__))
for name, data in (("control", side(range(5, 11), 1520, "0x7f3a2c01b2e0", 150, False)),
                   ("test", side(range(7, 9), 1527, "0x7f11aa00ffe0", 180, True))):
    os.makedirs(os.path.join(here, name), exist_ok=True)
    with open(os.path.join(here, name, "trace.json"), "w") as f:
        json.dump(data, f, indent=0)
        f.write("\n")
