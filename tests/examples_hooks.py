"""Functions for test_hooks.py: `with s2sad.grad_of(x) as dx:` blocks."""
import numpy as np

import s2sad


def printed(x, w):
    y = x * w
    with s2sad.grad_of(y) as dy:
        print("hook dy", dy)
    return np.sum(y * y)


def clipped(x, w):
    y = x * w
    with s2sad.grad_of(y) as dy:
        dy = np.clip(dy, -1.0, 1.0)
    return np.sum(y * y)


def in_a_loop(x):
    s = 0.0
    for i in range(3):
        s = s + x * (i + 1.0)
        with s2sad.grad_of(s) as ds:
            print("hook step", i, ds, s)
            if ds > 2.0:
                ds = 2.0
    return s * s


def _scaled(h, w):
    h = np.tanh(h * w)
    with s2sad.grad_of(h) as dh:
        dh = dh * 0.5
    return h


def calls_a_hooked_function(x, w):
    return _scaled(x, w) * x


def _scaled_reference(x, w):
    """What calls_a_hooked_function's gradient is: the tanh part's gradient halved."""
    h = np.tanh(x * w)
    dh = 0.5 * x
    return dh * (1.0 - h * h) * w + h, dh * (1.0 - h * h) * x


def writes_forward_value(x):
    y = x * 2.0
    with s2sad.grad_of(y) as dy:  # noqa: F841  (the block may not write y)
        y = 3.0
    return y


def other_context_manager(x):
    with open("nothing") as handle:
        y = x * 2.0
    return y + handle


def uses_gradient_outside(x):
    with s2sad.grad_of(x) as dx:
        print(dx)
    return x * dx
