"""`framework.provided`: what the course gives you and does not ask you to write.

Nothing here is an exercise, and nothing here repeats one: read it when you are curious, skip
it when you are not. By what it serves:

- your notebooks: `data` (data sets and tasks; `dates`, `datasets/`), `viz` (pictures;
  `graph_drawing`), `prerequisites` (each notebook's first cell), `memory` and `runtime` (speed,
  and the lines a training run prints);
- the engine around your chapters: `grad_mode` (`no_grad`), `promotion` (PyTorch's dtypes of a
  binary op), `tensor_methods` (`view`, casts, in-place updates; `in_place`, their version
  counters and history), `optimizer` (chapter 4's base class; `joined_step`, its one-pass
  step), `generator` (the shared random generator), `reductions` (a fast row maximum);
- chapter 8's machine: `jit` (Numba, and its CUDA simulator where no GPU is visible),
  `strided` (what a strided array checks and shows), `launch` (what stands between a caller
  and your kernels: input checks, outputs, compiled-kernel caches, the fused autograd ops),
  `simd` (an `exp` that compiled loops vectorise), `backend` (`framework.set_backend("kernels")`:
  the fused kernels under F.layer_norm, F.softmax and F.gelu);
- PyTorch's names: `surface` (`framework.arange`, `framework.float32`, ...), `autograd`
  (`autograd.Function`, `autograd.grad`), `device`, `dims` (`dim=` for `axis=`), `printing`
  (a tensor prints as `tensor([1., 2.])`, its shape as `torch.Size([2])`);
- the package itself: `lazy` (names that load on first use, and the old paths of moved files).
"""
