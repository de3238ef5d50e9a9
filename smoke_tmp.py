import numpy as np, time
from checks.loader import load_framework
fw = load_framework("solutions")
from framework.utils.checkpoint import checkpoint
nn = fw.nn
fw.manual_seed(0)
block = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.3), nn.Linear(8, 4))
x0 = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
def run(ck):
    fw.manual_seed(1)
    for p in block.parameters(): p.grad = None
    x = fw.Tensor(x0, requires_grad=True)
    h = x * 2
    y = checkpoint(block, h) if ck else block(h)
    (y * y).sum().backward()
    return y.data, x.grad, [p.grad for p in block.parameters()], fw.provided.generator.default_generator().random()
a, b = run(False), run(True)
print(np.array_equal(a[0], b[0]), np.array_equal(a[1], b[1]), all(np.array_equal(p, q) for p, q in zip(a[2], b[2])), a[3] == b[3], b[1].dtype)
