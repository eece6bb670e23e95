"""collrepro.distributions reproduces bench/families/inter_family.cpp's distribute() bit for bit."""

import pytest

from collrepro.distributions import distribute, nominal_sizes

# Printed by the C++ distribute() of bench/families/inter_family.cpp (seed 0).
CPP_RANDOM_4096_7 = (1905, 8040, 7478, 1342, 3079, 2760, 3093)
CPP_ARITHMETIC_4096_7 = (1172, 2344, 3516, 4688, 5860, 7032, 8204)
CPP_SUMS = {(7, 3): 12, (4096, 3): 16619, (4096, 11): 45071, (524288, 7): 4630798,
            (524288, 11): 5669695}


def test_matches_the_cpp_generator():
    assert distribute("random", 4096, 7) == CPP_RANDOM_4096_7
    assert distribute("arithmetic", 4096, 7) == CPP_ARITHMETIC_4096_7
    for (s, n), total in CPP_SUMS.items():
        assert sum(distribute("random", s, n)) == total
    assert distribute("equal", 5, 3) == (5, 5, 5)


def test_seed_zero_is_the_unseeded_generator_and_seeds_differ():
    assert distribute("random", 4096, 7, 0) == distribute("random", 4096, 7)
    assert distribute("random", 4096, 7, 1) != distribute("random", 4096, 7)
    assert all(0 <= b <= 2 * 4096 for b in distribute("random", 4096, 7, 12345))
    assert distribute("random", 0, 4) == (0, 0, 0, 0)


def test_nominal_sizes_split_by_the_block_ratio():
    assert nominal_sizes(4096, 4, 1) == (4096, 1024)
    assert nominal_sizes(4096, 1, 0) == (4096, 0)
    assert nominal_sizes(1000, 3, 7) == (428, 1000)
    with pytest.raises(ValueError):
        distribute("zipf", 8, 2)


def test_seeded_values_match_the_cpp_test():
    # The same values are asserted by tests/driver/plan_test.cpp (Distribution.RandomIsTheSharedGenerator).
    assert distribute("random", 4096, 7, 7) == (6376, 4760, 7314, 2037, 1618, 1336, 5691)
