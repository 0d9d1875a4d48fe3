"""A realistic ~100-line function for the latency target "first call (transform + compile)
<= 1.5 s for a 100-line function" (latency.py measures it).

A planar quadrotor follows a list of waypoints under a cascaded PD controller with a tilt limit,
rotor saturation, wind gusts, quadratic drag and ground contact, integrated with semi-implicit
Euler. The loss is the tracking error plus control effort and a final attitude penalty; it is
differentiated w.r.t. the controller gains and the physical parameters.
"""
import math

import numpy as np

POSITIONS = (0, 1)   # gains, physical


def drone_loss(gains, physical, waypoints, wind, steps):
    # controller gains: position (x, y) and attitude, proportional and derivative
    kp_x = gains[0]
    kd_x = gains[1]
    kp_y = gains[2]
    kd_y = gains[3]
    kp_theta = gains[4]
    kd_theta = gains[5]
    # physical parameters
    mass = physical[0]
    inertia = physical[1]
    arm = physical[2]
    drag = physical[3]
    gravity = 9.81
    dt = 0.01
    max_rotor = mass * gravity          # each rotor lifts at most the whole weight
    max_tilt = 0.5                      # radians
    # state: position, attitude, their rates
    x = 0.0
    y = 1.0
    theta = 0.0
    vx = 0.0
    vy = 0.0
    omega = 0.0
    # what the controller sees: rates through a first-order low-pass filter (a cheap sensor)
    vx_seen = 0.0
    vy_seen = 0.0
    omega_seen = 0.0
    smoothing = 0.3
    # the rotors follow their commands with a lag
    rotor_lag = 0.05
    left_actual = 0.5 * mass * gravity
    right_actual = 0.5 * mass * gravity
    target = 0
    tracking = 0.0
    effort = 0.0
    impacts = 0.0
    for t in range(steps):
        # the current waypoint; move on to the next one once close to it
        ex = waypoints[target, 0] - x
        ey = waypoints[target, 1] - y
        if ex * ex + ey * ey < 0.04 and target + 1 < waypoints.shape[0]:
            target = target + 1
            ex = waypoints[target, 0] - x
            ey = waypoints[target, 1] - y
        # outer loop: the acceleration wanted, then the tilt and thrust that give it
        ax_wanted = kp_x * ex - kd_x * vx_seen
        ay_wanted = kp_y * ey - kd_y * vy_seen + gravity
        if ay_wanted < 0.1 * gravity:
            ay_wanted = 0.1 * gravity    # never ask to fall faster than a tenth of g
        theta_wanted = math.atan2(-ax_wanted, ay_wanted)
        if theta_wanted > max_tilt:
            theta_wanted = max_tilt
        elif theta_wanted < -max_tilt:
            theta_wanted = -max_tilt
        thrust_wanted = mass * math.sqrt(ax_wanted * ax_wanted + ay_wanted * ay_wanted)
        # inner loop: the torque that turns towards the wanted tilt
        torque = kp_theta * (theta_wanted - theta) - kd_theta * omega_seen
        # mix into two rotors, each saturated to [0, max_rotor]
        left = 0.5 * thrust_wanted - torque / (2.0 * arm)
        right = 0.5 * thrust_wanted + torque / (2.0 * arm)
        if left < 0.0:
            left = 0.0
        elif left > max_rotor:
            left = max_rotor
        if right < 0.0:
            right = 0.0
        elif right > max_rotor:
            right = max_rotor
        left_actual = left_actual + dt / rotor_lag * (left - left_actual)
        right_actual = right_actual + dt / rotor_lag * (right - right_actual)
        thrust = left_actual + right_actual
        moment = arm * (right_actual - left_actual)
        # wind: a gust profile that repeats; drag grows with the square of the airspeed
        gust = wind[t % wind.shape[0]]
        air_x = vx - gust
        fx = -thrust * math.sin(theta) - drag * air_x * abs(air_x)
        fy = thrust * math.cos(theta) - mass * gravity - drag * vy * abs(vy)
        # semi-implicit Euler: rates first, then positions with the new rates
        vx = vx + dt * fx / mass
        vy = vy + dt * fy / mass
        omega = omega + dt * moment / inertia
        x = x + dt * vx
        y = y + dt * vy
        theta = theta + dt * omega
        # ground contact: bounce back with restitution 0.4 and lose some sideways speed
        if y < 0.0:
            impacts = impacts + vy * vy
            y = -0.4 * y
            vy = -0.4 * vy
            vx = 0.7 * vx
        # the filtered rates for the next step
        vx_seen = vx_seen + smoothing * (vx - vx_seen)
        vy_seen = vy_seen + smoothing * (vy - vy_seen)
        omega_seen = omega_seen + smoothing * (omega - omega_seen)
        tracking = tracking + ex * ex + ey * ey
        effort = effort + left * left + right * right
    return tracking / steps + 1e-4 * effort / steps + impacts + 0.1 * theta * theta


def make_args(rng):
    """Gains near a stable tuning, physical parameters of a small drone, four waypoints."""
    gains = np.array([2.0, 1.5, 4.0, 2.5, 30.0, 6.0]) * rng.uniform(0.9, 1.1, 6)
    physical = np.array([1.2, 0.02, 0.2, 0.05])
    waypoints = np.array([[0.5, 1.5], [1.5, 2.0], [2.5, 1.0], [3.0, 1.5]])
    wind = 0.5 * np.sin(np.linspace(0.0, 2.0 * np.pi, 50)) + 0.1 * rng.normal(size=50)
    return gains, physical, waypoints, wind, 200
