"""Chapter 6's bug zoo: the mistakes learners make in unfold, convolution and pooling."""

from checks.mutants import Mutant

CONV, NN = "nn/conv.py", "nn/modules.py"

MUTANTS = [
    # -- 6.1 unfold
    Mutant(
        "6.1", "width padded by the height's padding",
        """        padded = np.zeros_like(x, shape=(n, c, h + 2 * ph, w + 2 * pw))
        padded[:, :, ph:ph + h, pw:pw + w] = x""",
        """        padded = np.zeros_like(x, shape=(n, c, h + 2 * ph, w + 2 * ph))
        padded[:, :, ph:ph + h, ph:ph + w] = x""",
    ),
    Mutant(
        "6.1", "padding on one side only (twice on the bottom and right)",
        "padded[:, :, ph:ph + h, pw:pw + w] = x",
        "padded[:, :, :h, :w] = x",
    ),
    Mutant(
        "6.1", "width stepped by the height's stride",
        "return windows[:, :, ::sh, ::sw]",
        "return windows[:, :, ::sh, ::sh]",
    ),
    Mutant(
        "6.1", "windows start one stride late (off by one)",
        "return windows[:, :, ::sh, ::sw]",
        "return windows[:, :, sh - 1::sh, sw - 1::sw]",
    ),
    # -- 6.2 forward
    Mutant(
        "6.2", "kernel flipped in the forward (a true convolution, not PyTorch's)",
        "kernels = weight.transpose(0, 2, 3, 1)",
        "kernels = weight[:, :, ::-1, ::-1].transpose(0, 2, 3, 1)",
    ),
    Mutant(
        "6.2", "columns channels-first, the kernels channels-last: the two orders differ",
        "columns = windows.transpose(0, 2, 3, 4, 5, 1).reshape(n * oh * ow, -1)",
        "columns = windows.transpose(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, -1)",
    ),
    Mutant(
        "6.2", "columns copied offset by offset in (c, u, v) order, the kernels in (u, v, c)",
        """            columns = np.empty((n, oh, ow, kh, kw, x.shape[1]), x.dtype)
            for u, v in np.ndindex(kh, kw):
                columns[:, :, :, u, v] = windows[..., u, v].transpose(0, 2, 3, 1)""",
        """            columns = np.empty((n, oh, ow, x.shape[1], kh, kw), x.dtype)
            for u, v in np.ndindex(kh, kw):
                columns[..., u, v] = windows[..., u, v].transpose(0, 2, 3, 1)""",
    ),
    Mutant(
        "6.2", "output reshaped to (N, C_out, OH, OW) without the transpose",
        "return out.reshape(n, oh, ow, -1).transpose(0, 3, 1, 2)",
        "return out.reshape(n, -1, oh, ow)",
    ),
    # -- 6.3 weight and bias gradients
    Mutant(
        "6.3", "weight gradient transposed (columnsᵀ G, reshaped)",
        "return (grad2.T @ columns)",
        "return (columns.T @ grad2)",
    ),
    Mutant(
        "6.3", "weight gradient reshaped channels-first, the columns being channels-last",
        ".reshape(c_out, kh, kw, c).transpose(0, 3, 1, 2)",
        ".reshape(weight_shape)",
    ),
    Mutant(
        "6.3", "bias gradient not summed over the batch (first image only)",
        "grad2 = grad.transpose(0, 2, 3, 1).reshape(-1, grad.shape[1])",
        "grad2 = grad[:1].transpose(0, 2, 3, 1).reshape(-1, grad.shape[1])",
    ),
    Mutant(
        "6.3", "bias gradient not summed over positions (top-left only)",
        "grad2 = grad.transpose(0, 2, 3, 1).reshape(-1, grad.shape[1])",
        "grad2 = grad[:, :, :1, :1].transpose(0, 2, 3, 1).reshape(-1, grad.shape[1])",
    ),
    # -- 6.4 input gradient
    Mutant(
        "6.4", "input gradient with the kernel not flipped",
        "flipped = weight[:, :, ::-1, ::-1]",
        "flipped = weight",
    ),
    Mutant(
        "6.4", "input gradient with the kernel's channel axes not swapped",
        "kernels = flipped.transpose(2, 3, 0, 1)",
        "kernels = flipped.transpose(2, 3, 1, 0)",
    ),
    Mutant(
        "6.4", "G placed in x's frame as if x had no padding",
        "top, left = kh - 1 - ph, kw - 1 - pw",
        "top, left = kh - 1, kw - 1",
    ),
    Mutant(
        "6.4", "G's columns placed by the kernel's height",
        "top, left = kh - 1 - ph, kw - 1 - pw",
        "top, left = kh - 1 - ph, kh - 1 - pw",
    ),
    Mutant(
        "6.4", "G not spread out by the stride (placed side by side)",
        """    frame[:, :, mh + top:mh + top + (oh - 1) * sh + 1:sh,
          mw + left:mw + left + (ow - 1) * sw + 1:sw] = grad""",
        "    frame[:, :, mh + top:mh + top + oh, mw + left:mw + left + ow] = grad",
    ),
    Mutant(
        "6.4", "no margin where the padding is wider than the kernel (G's edge wraps around)",
        "mh, mw = max(-top, 0), max(-left, 0)",
        "mh, mw = 0, 0",
    ),
    # -- 6.5 max pooling
    Mutant(
        "6.5", "a tie routed to every maximum of its window",
        "            won &= unclaimed  # a window already won gives later ties nothing\n",
        "",
    ),
    Mutant(
        "6.5", "a tie routed to the last maximum",
        "for k in range(kh * kw):  # row-major order",
        "for k in reversed(range(kh * kw)):  # row-major order",
    ),
    Mutant(
        "6.5", "gradient to every pixel of the window, as an average would",
        """            won = ctx.windows[..., i, j] == ctx.out
            won &= unclaimed  # a window already won gives later ties nothing
            unclaimed ^= won
            pixels = grad_x[:, :, i:i + sh * oh:sh, j:j + sw * ow:sw]
            if overlapping:  # a pixel may win several windows: add up its shares
                pixels += laid_out * won
            else:  # each pixel is in one window at most: write its share in place
                np.multiply(laid_out, won, out=pixels)""",
        """            grad_x[:, :, i:i + sh * oh:sh, j:j + sw * ow:sw] = laid_out""",
    ),
    Mutant(
        "6.5", "each window's gradient to its first pixel, whatever the maximum",
        "won = ctx.windows[..., i, j] == ctx.out",
        "won = np.ones(ctx.out.shape, bool)",
    ),
    Mutant(
        "6.5", "overlapping windows' shares written over each other, not added",
        "overlapping = sh < kh or sw < kw",
        "overlapping = False",
    ),
    Mutant(
        "6.5", "the forward takes each window's minimum",
        """        out = np.maximum(offsets[0], offsets[-1])
        for offset in offsets[1:-1]:
            np.maximum(out, offset, out=out)""",
        """        out = np.minimum(offsets[0], offsets[-1])
        for offset in offsets[1:-1]:
            np.minimum(out, offset, out=out)""",
    ),
    # -- 6.6 average pooling
    Mutant(
        "6.6", "average pooling's forward sums instead of averaging",
        "return windows.mean(axis=(4, 5))",
        "return windows.sum(axis=(4, 5))",
    ),
    Mutant(
        "6.6", "average pooling's backward not divided by the window size",
        "share = grad / (kh * kw)",
        "share = grad",
    ),
    # -- 6.7 the Conv2d layer
    Mutant(
        "6.7", "Conv2d weight of shape (in, out, kH, kW)",
        "np.zeros((out_channels, in_channels) + kernel, dtype=dtype)",
        "np.zeros((in_channels, out_channels) + kernel, dtype=dtype)",
    ),
    Mutant(
        "6.7", "Conv2d weight with Kaiming's ReLU default (a = 0): √6 times too wide",
        "init.kaiming_uniform_(weight, a=math.sqrt(5))",
        "init.kaiming_uniform_(weight)",
    ),
    Mutant(
        "6.7", "Conv2d bias bound from fan_out",
        "bound = 1 / math.sqrt(in_channels * kernel[0] * kernel[1])",
        "bound = 1 / math.sqrt(out_channels * kernel[0] * kernel[1])",
    ),
    Mutant(
        "6.7", "Conv2d forward ignores its padding",
        "return F.conv2d(x, self.weight, self.bias, self.stride, self.padding)",
        "return F.conv2d(x, self.weight, self.bias, self.stride)",
    ),
    # -- 6.8 (bonus) dilation
    Mutant(
        "6.8", "kernel spread to d·k, one row and column too many",
        "spread = (dilation * (kh - 1) + 1, dilation * (kw - 1) + 1)",
        "spread = (dilation * kh, dilation * kw)",
    ),
    Mutant(
        "6.8", "backward reads the first entries, not the taps",
        "        return (grad[:, :, ::d, ::d],)\n",
        "        return (grad[:, :, : grad.shape[2] // d + 1, : grad.shape[3] // d + 1],)\n",
    ),
    Mutant(
        "6.8", "float64 zeros whatever the weight's dtype",
        "out = np.zeros((c_out, c_in) + spread, dtype=weight.dtype)",
        "out = np.zeros((c_out, c_in) + spread)",
    ),
    # -- 6.9 (bonus) depthwise convolution
    Mutant(
        "6.9", "channel 0's kernel for every channel",
        "conv2d(x[:, c:c + 1], weight[c:c + 1],",
        "conv2d(x[:, c:c + 1], weight[0:1],",
    ),
    Mutant(
        "6.9", "channel 0's bias for every channel",
        "None if bias is None else bias[c:c + 1]",
        "None if bias is None else bias[0:1]",
    ),
    Mutant(
        "6.9", "every kernel over every channel: a full convolution summed",
        "    return concatenate(channels, axis=1)\n",
        "    return conv2d(x, concatenate([weight] * x.shape[1], axis=1), bias, stride, padding)\n",
    ),
]
