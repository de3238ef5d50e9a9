"""Chapter 6's second correct implementation: every region written another textbook way.

unfold with `as_strided` and the strides written out; the forward as an `einsum` over the
windows (saved as they are, instead of as columns); the weight gradient as the matching
`einsum`; the input gradient as col2im (G times the kernels, folded back) instead of a
transposed convolution; max pooling's winner found by comparing with the maximum (reduced
over the windows at once) and routed through a one-hot mask folded back; average pooling as a
sum divided, its gradient by multiplication; Conv2d's weight drawn directly from U(±1/√fan_in).
"""

from checks.mutants import WHOLE_REGION, Mutant

CONV, NN = "nn/conv.py", "nn/modules.py"

ALTERNATIVES = [
    Mutant(
        "6.1", "unfold with as_strided",
        """    (ph, pw), (sh, sw) = padding, stride
    if ph or pw:  # zeros laid out as x is: a channels-last image stays channels-last
        n, c, h, w = x.shape
        padded = np.zeros_like(x, shape=(n, c, h + 2 * ph, w + 2 * pw))
        padded[:, :, ph:ph + h, pw:pw + w] = x
        x = padded
    windows = sliding_window_view(x, kernel_size, axis=(2, 3))
    return windows[:, :, ::sh, ::sw]""",
        """    x = np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    n, c, h, w = x.shape
    oh = (h - kernel_size[0]) // stride[0] + 1
    ow = (w - kernel_size[1]) // stride[1] + 1
    sn, sc, sh, sw = x.strides
    return np.lib.stride_tricks.as_strided(
        x, (n, c, oh, ow) + tuple(kernel_size),
        (sn, sc, sh * stride[0], sw * stride[1], sh, sw), writeable=False)""",
    ),
    Mutant(
        "6.2", "forward as an einsum over the windows",
        """        windows = unfold(x, weight.shape[2:], stride, padding)  # (N, C, OH, OW, kH, kW)
        n, _, oh, ow, kh, kw = windows.shape
        if x.strides[1] == x.itemsize:  # channels-last memory: one copy reads runs of kW·C
            columns = windows.transpose(0, 2, 3, 4, 5, 1).reshape(n * oh * ow, -1)
        else:  # image rows in memory: a copy per kernel offset reads runs of OW
            columns = np.empty((n, oh, ow, kh, kw, x.shape[1]), x.dtype)
            for u, v in np.ndindex(kh, kw):
                columns[:, :, :, u, v] = windows[..., u, v].transpose(0, 2, 3, 1)
            columns = columns.reshape(n * oh * ow, -1)
        kernels = weight.transpose(0, 2, 3, 1).reshape(weight.shape[0], -1)  # (C_out, kH·kW·C)
        out = columns @ kernels.T  # (N·OH·OW, C_out)
        if bias is not None:
            out += bias
        ctx.save_for_backward(columns, weight)
        return out.reshape(n, oh, ow, -1).transpose(0, 3, 1, 2)""",
        """        windows = unfold(x, weight.shape[2:], stride, padding)
        ctx.save_for_backward(windows, weight)
        out = np.einsum("ncijuv,ocuv->noij", windows, weight)
        return out if bias is None else out + bias.reshape(1, -1, 1, 1)""",
    ),
    Mutant(
        "6.3", "weight gradient as an einsum over the saved windows",
        """    c_out, c, kh, kw = weight_shape
    grad2 = grad.transpose(0, 2, 3, 1).reshape(-1, c_out)  # no copy when G is channels-last
    return (grad2.T @ columns).reshape(c_out, kh, kw, c).transpose(0, 3, 1, 2)""",
        """    return np.einsum("noij,ncijuv->ocuv", grad, columns)""",
    ),
    Mutant(
        "6.3", "bias gradient summed one axis at a time",
        """    grad2 = grad.transpose(0, 2, 3, 1).reshape(-1, grad.shape[1])  # (N·OH·OW, C_out)
    # the column sums as a product with ones: one BLAS call, where NumPy's sum over three
    # axes of a channels-last array was measured 16 times slower
    return np.ones(len(grad2), grad.dtype) @ grad2""",
        "    return grad.sum(axis=3).sum(axis=2).sum(axis=0)",
    ),
    Mutant(
        "6.4", "input gradient by col2im: G times the kernels, folded back",
        WHOLE_REGION,
        """    windows_grad = np.tensordot(grad, weight, axes=([1], [0]))  # (N, OH, OW, C, kH, kW)
    return fold(windows_grad.transpose(0, 3, 1, 2, 4, 5), shape, stride, padding)
""",
    ),
    Mutant(
        "6.5", "max pooling: the first position equal to the maximum, a one-hot mask",
        WHOLE_REGION,
        """        out = windows.max(axis=(4, 5))
        flat = windows.reshape(windows.shape[:4] + (-1,))
        ctx.winner = np.argmax(flat == out[..., None], axis=-1)  # the first True
        ctx.kernel = windows.shape[4:]
        return out
""",
        within="MaxPool2dFunction.forward",
    ),
    Mutant(
        "6.5", "max pooling's backward through a one-hot mask",
        WHOLE_REGION,
        """        one_hot = ctx.winner[..., None] == np.arange(ctx.kernel[0] * ctx.kernel[1])
        windows_grad = (one_hot * grad[..., None]).reshape(grad.shape + ctx.kernel)
        return (fold(windows_grad, ctx.shape, ctx.stride, (0, 0)),)
""",
        within="MaxPool2dFunction.backward",
    ),
    Mutant(
        "6.6", "average pooling as a sum divided",
        "return windows.mean(axis=(4, 5))",
        "return windows.sum(axis=(4, 5)) / (ctx.kernel[0] * ctx.kernel[1])",
    ),
    Mutant(
        "6.6", "average pooling's backward by multiplying with ones",
        """        share = grad / (kh * kw)
        windows_grad = np.broadcast_to(share[..., None, None], grad.shape + (kh, kw))""",
        """        windows_grad = np.ones(grad.shape + (kh, kw), grad.dtype) * grad[..., None, None]
        windows_grad /= kh * kw""",
    ),
    Mutant(
        "6.7", "Conv2d weight drawn directly from U(±1/√fan_in)",
        """        weight = Parameter(np.zeros((out_channels, in_channels) + kernel, dtype=dtype))
        self.weight = init.kaiming_uniform_(weight, a=math.sqrt(5))
        bound = 1 / math.sqrt(in_channels * kernel[0] * kernel[1])""",
        """        bound = 1 / math.sqrt(in_channels * kernel[0] * kernel[1])
        rng = default_generator()
        self.weight = Parameter(
            rng.uniform(-bound, bound, (out_channels, in_channels) + kernel).astype(dtype))""",
    ),
    Mutant(
        "6.8", "dilate tap by tap",
        WHOLE_REGION,
        "ctx.dilation = dilation\n"
        "c_out, c_in, kh, kw = weight.shape\n"
        "out = np.zeros((c_out, c_in, dilation * (kh - 1) + 1, dilation * (kw - 1) + 1), weight.dtype)\n"
        "for u in range(kh):\n"
        "    for v in range(kw):\n"
        "        out[:, :, dilation * u, dilation * v] = weight[:, :, u, v]\n"
        "return out\n",
        within="Dilate.forward",
    ),
    Mutant(
        "6.8", "dilate's rule as a copy of the taps",
        "        return (grad[:, :, ::d, ::d],)\n",
        "        return (np.ascontiguousarray(grad[:, :, 0::d, 0::d]),)\n",
    ),
    Mutant(
        "6.9", "depthwise as one convolution with a block-diagonal kernel",
        WHOLE_REGION,
        "mask = Tensor(np.eye(x.shape[1], dtype=weight.data.dtype)[:, :, None, None])\n"
        "return conv2d(x, weight * mask, bias, stride, padding)\n",
    ),
]
