"""Chapter 6's second correct implementation: every region written another textbook way.

unfold with `as_strided` and the strides written out; the forward as an `einsum` over the
windows (saved as they are, instead of as columns); the weight gradient as the matching
`einsum`; the input gradient as col2im (G times the kernels, folded back) instead of a
transposed convolution; max pooling's winner found by comparing with the maximum and routed
through a one-hot mask; average pooling as a sum divided, its gradient by multiplication;
Conv2d's weight drawn directly from U(±1/√fan_in).
"""

from checks.mutants import Mutant

CONV, NN = "nn/conv.py", "nn/modules.py"

ALTERNATIVES = [
    Mutant(
        "6.1", "unfold with as_strided",
        """    (ph, pw), (sh, sw) = padding, stride
    if ph or pw:
        x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
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
        n, _, oh, ow = windows.shape[:4]
        columns = windows.transpose(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, -1)
        out = columns @ weight.reshape(weight.shape[0], -1).T  # (N·OH·OW, C_out)
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
        """    grad2 = grad.transpose(0, 2, 3, 1).reshape(-1, weight_shape[0])
    return (grad2.T @ columns).reshape(weight_shape)""",
        """    return np.einsum("noij,ncijuv->ocuv", grad, columns)""",
    ),
    Mutant(
        "6.3", "bias gradient summed one axis at a time",
        "return grad.sum(axis=(0, 2, 3))",
        "return grad.sum(axis=3).sum(axis=2).sum(axis=0)",
    ),
    Mutant(
        "6.4", "input gradient by col2im: G times the kernels, folded back",
        """    n, _, oh, ow = grad.shape
    kh, kw = weight.shape[2:]
    (sh, sw), (ph, pw) = stride, padding
    spread = np.zeros((n, grad.shape[1], (oh - 1) * sh + 1, (ow - 1) * sw + 1), grad.dtype)
    spread[:, :, ::sh, ::sw] = grad
    windows = unfold(spread, (kh, kw), padding=(kh - 1, kw - 1))  # (N, C_out, H', W', kH, kW)
    flipped = weight[:, :, ::-1, ::-1]
    full = np.einsum("nohwij,ocij->nchw", windows, flipped, optimize=True)
    padded = np.zeros((n, shape[1], shape[2] + 2 * ph, shape[3] + 2 * pw), grad.dtype)
    padded[:, :, :full.shape[2], :full.shape[3]] = full
    return padded[:, :, ph:ph + shape[2], pw:pw + shape[3]]""",
        """    windows_grad = np.tensordot(grad, weight, axes=([1], [0]))  # (N, OH, OW, C, kH, kW)
    return fold(windows_grad.transpose(0, 3, 1, 2, 4, 5), shape, stride, padding)""",
    ),
    Mutant(
        "6.5", "max pooling: the first position equal to the maximum, a one-hot mask",
        """        flat = windows.reshape(windows.shape[:4] + (-1,))  # (N, C, OH, OW, kH·kW)
        ctx.winner = flat.argmax(axis=-1)[..., None]
        ctx.kernel = windows.shape[4:]
        return np.take_along_axis(flat, ctx.winner, axis=-1)[..., 0]""",
        """        out = windows.max(axis=(4, 5))
        flat = windows.reshape(windows.shape[:4] + (-1,))
        ctx.winner = np.argmax(flat == out[..., None], axis=-1)  # the first True
        ctx.kernel = windows.shape[4:]
        return out""",
    ),
    Mutant(
        "6.5", "max pooling's backward through a one-hot mask",
        """        routed = np.zeros(grad.shape + (ctx.kernel[0] * ctx.kernel[1],), grad.dtype)
        np.put_along_axis(routed, ctx.winner, grad[..., None], axis=-1)
        windows_grad = routed.reshape(grad.shape + ctx.kernel)""",
        """        one_hot = ctx.winner[..., None] == np.arange(ctx.kernel[0] * ctx.kernel[1])
        windows_grad = (one_hot * grad[..., None]).reshape(grad.shape + ctx.kernel)""",
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
]
