"""Blind corpus: find_wrong_backward (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad as cg


def wrong_index_of_passing(layers):
    """Collects every suspect's verdict and returns oks.index(True), the first Function that PASSES gradcheck, instead of the one that fails."""
    oks = [cg.gradcheck(fn, inputs, raise_exception=False).ok for fn, inputs in layers]
    return oks.index(True)


def wrong_last_suspect_skipped(layers):
    """Loops i over range(len(layers) - 1), so the last suspect is never checked and -1 comes back when it is the wrong one."""
    for i in range(len(layers) - 1):
        fn, inputs = layers[i]
        report = cg.gradcheck(fn, inputs, raise_exception=False)
        if not report:
            return i
    return -1


def wrong_ones_upstream(layers):
    """Writes its own central-difference check of L = fn(*inputs).sum() (an all-ones upstream gradient) and returns the suspect with the largest error, so a bug that an all-ones dy hides (e.g. the same gradient reaching every window element) picks a wrong suspect."""
    errors = []
    eps = 1e-6
    for fn, inputs in layers:
        xs = [cg.Tensor(np.array(getattr(a, "data", a), dtype=np.float64), requires_grad=True) for a in inputs]
        fn(*xs).sum().backward()
        worst = 0.0
        for x in xs:
            g = np.zeros_like(x.data) if x.grad is None else x.grad
            flat = x.data.reshape(-1)
            for j in range(flat.size):
                orig = flat[j]
                flat[j] = orig + eps
                plus = fn(*xs).data.sum()
                flat[j] = orig - eps
                minus = fn(*xs).data.sum()
                flat[j] = orig
                worst = max(worst, abs((plus - minus) / (2 * eps) - g.reshape(-1)[j]))
        errors.append(worst)
    return int(np.argmax(errors))


def wrong_first_input_only(layers):
    """Its own finite-difference check (random dy) perturbs only the first input, so a backward that is wrong only in dw or db is never noticed and the function falls through to returning 0."""
    rng = np.random.default_rng(0)
    eps = 1e-6
    for i, (fn, inputs) in enumerate(layers):
        xs = [cg.Tensor(np.array(getattr(a, "data", a), dtype=np.float64), requires_grad=True) for a in inputs]
        out = fn(*xs)
        dy = rng.standard_normal(out.shape)
        out.backward(dy)
        x = xs[0]
        numeric = np.zeros_like(x.data)
        for j in np.ndindex(x.shape):
            orig = x.data[j]
            x.data[j] = orig + eps
            plus = np.sum(fn(*xs).data * dy)
            x.data[j] = orig - eps
            minus = np.sum(fn(*xs).data * dy)
            x.data[j] = orig
            numeric[j] = (plus - minus) / (2 * eps)
        if not np.allclose(numeric, x.grad, rtol=1e-4, atol=1e-6):
            return i
    return 0


def wrong_float32_check(layers):
    """Runs its own central differences in float32 (eps=1e-3) and compares with np.allclose's default tolerances, so rounding noise makes a correct Function fail first."""
    rng = np.random.default_rng(1)
    eps = np.float32(1e-3)
    for i, (fn, inputs) in enumerate(layers):
        xs = [cg.Tensor(np.asarray(getattr(a, "data", a), dtype=np.float32), requires_grad=True) for a in inputs]
        out = fn(*xs)
        dy = rng.standard_normal(out.shape).astype(np.float32)
        out.backward(dy)
        for x in xs:
            g = np.zeros_like(x.data) if x.grad is None else x.grad
            num = np.zeros_like(x.data)
            flat = x.data.reshape(-1)
            nflat = num.reshape(-1)
            for j in range(flat.size):
                orig = flat[j]
                flat[j] = orig + eps
                plus = np.sum(fn(*xs).data * dy)
                flat[j] = orig - eps
                minus = np.sum(fn(*xs).data * dy)
                flat[j] = orig
                nflat[j] = (plus - minus) / (2 * eps)
            if not np.allclose(num, g):
                return i
    return len(layers) - 1


def wrong_counts_from_one(layers):
    """Numbers the suspects from 1 (like the "case 1" of the statement), so it returns the position of the failing Function, one more than its index."""
    k = 1
    for fn, inputs in layers:
        if not cg.gradcheck(fn, inputs, raise_exception=False):
            return k
        k += 1
    return None
