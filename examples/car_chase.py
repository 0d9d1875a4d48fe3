"""Online learning with s2sad: a car learns to follow a truck, one gradient per time step.

    python examples/car_chase.py [--steps 3000] [--plot out.png] [--no-jit]

A truck drives along a line with a smooth, varying speed. A car behind it accelerates with a
saturated PD controller,

    u = UMAX * tanh((kp * (distance - GAP) + kd * closing_speed) / UMAX),

and should keep GAP metres behind the truck. Its gains (kp, kd) start far too small.

Part 1, online learning. At every time step the program makes ONE call of
s2sad.grad(lookahead_loss): the squared gap error over a short lookahead (a small loop of the
car's dynamics, the truck extrapolated at its current speed), differentiated w.r.t. (kp, kd).
It takes a gradient step on the gains and advances the simulation by one step. The wall time of
every gradient call is recorded: it stays flat, because a generated adjoint keeps no state
between calls (a tape would grow, or have to be rebuilt and replayed).

Part 2, a long rollout. chase_loss runs the car and the truck together for 300 steps and sums
the squared gap error; its gradient w.r.t. (kp, kd), taken with s2sad through all 300 steps, is
compared with central finite differences. The exit status is 1 if they differ by more than 1e-6
(relative).

--plot out.png saves the time per step (needs matplotlib: pip install 's2sad[plot]').
"""
import argparse
import math
import sys
import time

import numpy as np

import s2sad

GAP = 10.0      # metres the car should stay behind the truck
UMAX = 4.0      # the car's largest acceleration / braking, m/s^2
DT = 0.05       # time step, s
HORIZON = 20    # lookahead steps of the per-step loss (1 s)
WARMUP = 20     # untimed gradient calls before the timed steps


# ---------------------------------------------------------------------------------------------
# Differentiated code: module-level functions of floats and ints, `for` loops, math functions.

def truck_speed(t):
    """The truck's speed at time t: smooth, between 7 and 17 m/s."""
    return 12.0 + 3.0 * math.sin(0.2 * t) + 2.0 * math.sin(0.05 * t + 1.0)


def accel(kp, kd, distance, closing):
    """The car's controller: a PD law on the gap error, saturated at +-UMAX."""
    return UMAX * math.tanh((kp * (distance - GAP) + kd * closing) / UMAX)


def lookahead_loss(kp, kd, xc, vc, xt, vt, dt, horizon):
    """Squared gap error over `horizon` steps ahead, truck extrapolated at constant speed vt."""
    loss = 0.0
    for i in range(horizon):
        u = accel(kp, kd, xt - xc, vt - vc)
        vc = vc + dt * u
        xc = xc + dt * vc
        xt = xt + dt * vt
        e = xt - xc - GAP
        loss = loss + dt * e * e
    return loss


def chase_loss(kp, kd, xc, vc, xt, t, dt, n):
    """Squared gap error accumulated over n steps of the car and the truck together."""
    loss = 0.0
    for i in range(n):
        vt = truck_speed(t)
        u = accel(kp, kd, xt - xc, vt - vc)
        vc = vc + dt * u
        xc = xc + dt * vc
        xt = xt + dt * vt
        t = t + dt
        e = xt - xc - GAP
        loss = loss + dt * e * e
    return loss


# ---------------------------------------------------------------------------------------------
# Driver code (not differentiated).

def online_learning(steps, jit, learning_rate=0.02, max_step=0.05, report_every=500):
    """Part 1: one gradient call and one gradient step per simulation step."""
    dloss = s2sad.grad(lookahead_loss, wrt=("kp", "kd"), jit=jit)
    kp, kd = 0.05, 0.1                  # sluggish initial gains
    xc, vc = 0.0, 0.0                   # the car starts at rest...
    xt, t = 60.0, 0.0                   # ...60 m behind the truck

    start = time.perf_counter()
    dloss(kp, kd, xc, vc, xt, truck_speed(t), DT, HORIZON)
    first_call = time.perf_counter() - start
    for _ in range(WARMUP):             # untimed: CPU caches and branch predictors warm up
        dloss(kp, kd, xc, vc, xt, truck_speed(t), DT, HORIZON)

    times = np.empty(steps)
    gaps = np.empty(steps)
    for step in range(steps):
        vt = truck_speed(t)
        start = time.perf_counter()
        dkp, dkd = dloss(kp, kd, xc, vc, xt, vt, DT, HORIZON)
        times[step] = time.perf_counter() - start

        # gradient descent, each step clipped to max_step so a far-away truck cannot blow it up
        step_kp, step_kd = learning_rate * dkp, learning_rate * dkd
        scale = min(1.0, max_step / max(math.hypot(step_kp, step_kd), 1e-300))
        kp = max(kp - scale * step_kp, 0.0)
        kd = max(kd - scale * step_kd, 0.0)

        # advance the world by one step, with the same dynamics as the loss functions
        u = accel(kp, kd, xt - xc, vt - vc)
        vc = vc + DT * u
        xc = xc + DT * vc
        xt = xt + DT * vt
        t = t + DT
        gaps[step] = xt - xc
        if (step + 1) % report_every == 0:
            print(f"  step {step + 1:5d}: kp = {kp:.4f}, kd = {kd:.4f}, distance "
                  f"{gaps[step]:7.2f} m")
    return times, gaps, (kp, kd), first_call


def central_differences(f, args, positions, eps=1e-6):
    grads = []
    for k in positions:
        plus, minus = list(args), list(args)
        h = eps * max(1.0, abs(args[k]))
        plus[k] += h
        minus[k] -= h
        grads.append((f(*plus) - f(*minus)) / (2 * h))
    return np.array(grads)


def long_rollout(gains, jit, n=300):
    """Part 2: s2sad through n steps of chase_loss vs central finite differences."""
    args = (gains[0], gains[1], 0.0, 0.0, 60.0, 0.0, DT, n)
    dchase = s2sad.grad(chase_loss, wrt=(0, 1), jit=jit)
    ad = np.array(dchase(*args))
    fd = central_differences(chase_loss, args, (0, 1))
    error = float(np.max(np.abs(ad - fd) / np.maximum(np.abs(fd), 1e-12)))
    return chase_loss(*args), ad, fd, error


def save_plot(path, times):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(np.arange(len(times)), times * 1e6, ".", markersize=2)
    ax.set_xlabel("time step")
    ax.set_ylabel("gradient call (us)")
    ax.set_title("s2sad: wall time of the per-step gradient call")
    ax.set_ylim(0, np.percentile(times * 1e6, 99.5) * 1.5)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"saved {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000, help="time steps of part 1")
    parser.add_argument("--plot", metavar="PNG", help="save time per step vs step (matplotlib)")
    parser.add_argument("--no-jit", action="store_true", help="run the gradients as Python")
    opts = parser.parse_args(argv)
    if opts.steps < 200:
        parser.error("--steps must be at least 200 (first and last 100 steps are compared)")
    if opts.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("--plot needs matplotlib, which is not installed: pip install matplotlib "
                  "(or pip install 's2sad[plot]')", file=sys.stderr)
            return 2
    jit = not opts.no_jit

    print(f"Part 1: online learning, {opts.steps} steps of {DT} s, one s2sad gradient per step "
          f"(lookahead {HORIZON} steps, jit={'on' if jit else 'off'})")
    times, gaps, (kp, kd), first_call = online_learning(opts.steps, jit)
    first, last = times[:100].mean(), times[-100:].mean()
    print(f"  first gradient call (transform, compile or load from cache): {first_call:.2f} s, "
          f"then {WARMUP} untimed warm-up calls")
    print(f"  time per step, mean of steps 1-100:   {first * 1e6:8.1f} us")
    print(f"  time per step, mean of the last 100:  {last * 1e6:8.1f} us")
    print(f"  ratio last/first: {last / first:.2f}   (of the medians, robust to a busy machine: "
          f"{np.median(times[-100:]) / np.median(times[:100]):.2f}; median over all steps "
          f"{np.median(times) * 1e6:.1f} us)")
    print(f"  learned gains: kp = {kp:.4f}, kd = {kd:.4f}")
    print(f"  distance to the truck: start 60.00 m, final {gaps[-1]:.2f} m (target {GAP:g} m); "
          f"mean |gap error| over the last 500 steps "
          f"{np.mean(np.abs(gaps[-500:] - GAP)):.3f} m")
    if opts.plot:
        save_plot(opts.plot, times)

    print("\nPart 2: gradient of chase_loss through 300 steps, s2sad vs central finite "
          "differences")
    initial = (0.05, 0.1)
    status = 0
    for label, gains in (("initial gains", initial), ("learned gains", (kp, kd))):
        loss, ad, fd, error = long_rollout(gains, jit)
        print(f"  {label} kp={gains[0]:.4f}, kd={gains[1]:.4f}: loss {loss:.6g}")
        print(f"    s2sad:               d/dkp = {ad[0]: .12e}   d/dkd = {ad[1]: .12e}")
        print(f"    finite differences:  d/dkp = {fd[0]: .12e}   d/dkd = {fd[1]: .12e}")
        print(f"    max relative error {error:.1e}")
        if not error <= 1e-6:
            status = 1
    print("gradient check " + ("passed" if status == 0 else "FAILED (relative error > 1e-6)"))
    return status


if __name__ == "__main__":
    try:
        sys.exit(main())
    except s2sad.S2sadError as exc:
        sys.exit(f"s2sad could not differentiate this example:\n{exc}")
