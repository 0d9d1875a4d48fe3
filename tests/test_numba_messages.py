"""Numba's error messages that s2sad makes cheaper to compile (dispatch._cheaper_error_messages):
compiled code raises the same exception in the same situations, and its message still names
the shapes or the axis."""
import numpy as np
import pytest

numba = pytest.importorskip("numba")

from s2sad.runtime import dispatch  # noqa: E402

dispatch.install()


@pytest.fixture(scope="module")
def compiled():
    """The functions the tests compile, compiled once for all their parameters."""
    return {"sum": numba.njit(lambda a, k: np.sum(a, axis=k)),
            "sum method": numba.njit(lambda a, k: a.sum(axis=k)),
            "cumsum": numba.njit(lambda a, k: np.cumsum(a, axis=k)),
            "take": numba.njit(lambda a, i, k: np.take(a, i, axis=k)),
            "take method": numba.njit(lambda a, i, k: a.take(i, axis=k)),
            "take a tuple": numba.njit(lambda a, k: np.take(a, (0, 1), axis=k)),
            "take one": numba.njit(lambda a, k: np.take(a, 1, axis=k))}


def raised(func, *args):
    with pytest.raises(Exception) as info:
        func(*args)
    return info.value


def test_the_patches_are_in_place_with_this_numba():
    from numba.core.typing.templates import builtin_registry
    from numba.np import arraymath, arrayobj
    overloads = [getattr(t, "_overload_func", None) for t in builtin_registry.functions]
    for numbas in (arrayobj.ol_raise_with_shape_context_cpu, arraymath.array_cumsum,
                   arrayobj.numpy_take):
        assert numbas not in overloads, numbas.__name__
    jitable = [t for t in builtin_registry.functions
               if getattr(t, "key", None) is arraymath.check_axis_bounds]
    assert jitable and all(t._overload_func() is not arraymath.check_axis_bounds
                           for t in jitable)


@pytest.mark.parametrize("axis", [2, -3, 7])
def test_sum_over_an_axis_out_of_range(compiled, axis):
    a = np.arange(6.0).reshape(2, 3)
    for run in (compiled["sum"], compiled["sum method"]):
        np.testing.assert_array_equal(run(a, 1), a.sum(axis=1))
        np.testing.assert_array_equal(run(a, -2), a.sum(axis=-2))
        error = raised(run, a, axis)
        assert type(error) is np.exceptions.AxisError
        assert str(error) == f"axis {axis} is out of bounds for array of dimension 2"


def test_sum_over_a_tuple_of_axes_out_of_range():
    a = np.ones((2, 3))
    error = raised(numba.njit(lambda a: np.sum(a, axis=(0, 3))), a)
    assert type(error) is np.exceptions.AxisError
    assert str(error) == "axis 3 is out of bounds for array of dimension 2"


@pytest.mark.parametrize("shape, axis", [((2, 3), 2), ((2, 3), -3), ((4,), 1), ((4,), -2)])
def test_cumsum_along_an_axis_out_of_range(compiled, shape, axis):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    run = compiled["cumsum"]
    np.testing.assert_array_equal(run(a, 0), np.cumsum(a, axis=0))
    np.testing.assert_array_equal(run(a, -1), np.cumsum(a, axis=-1))
    error = raised(run, a, axis)
    assert type(error) is ValueError
    assert error.args == ("axis", axis, "is out of bounds for array of dimension", len(shape))
    assert "out of bounds" in str(error)


@pytest.mark.parametrize("axis", [2, -3])
def test_take_along_an_axis_out_of_range(compiled, axis):
    a = np.arange(6.0).reshape(2, 3)
    indices = np.array([1, 0])
    for run in (compiled["take"], compiled["take method"]):
        np.testing.assert_array_equal(run(a, indices, 1), np.take(a, indices, axis=1))
        np.testing.assert_array_equal(run(a, indices, -2), np.take(a, indices, axis=-2))
        error = raised(run, a, indices, axis)
        assert type(error) is ValueError
        assert error.args == ("axis", axis, "is out of bounds for array of dimension", 2)
    # a tuple of indices, and one index (Numba takes it as a tuple of one)
    error = raised(compiled["take a tuple"], a, axis)
    assert type(error) is ValueError and axis in error.args
    error = raised(compiled["take one"], a, axis)
    assert type(error) is ValueError and axis in error.args


def test_slice_assigned_from_another_shape():
    @numba.njit
    def assign(rows, row):
        rows[0] = row
        return rows

    np.testing.assert_array_equal(assign(np.zeros((2, 3)), np.ones(3))[0], np.ones(3))
    error = raised(assign, np.zeros((2, 3)), np.ones(4))
    assert type(error) is ValueError
    assert error.args == ("cannot assign slice of shape", (3,), "from input of shape", (4,))
