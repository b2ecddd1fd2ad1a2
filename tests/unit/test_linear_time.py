"""Every stage that reads user text takes time linear in it: doubling an adversarial input at most
about doubles the time (a ratio of two timings on this machine, never a timing against a clock)."""

from __future__ import annotations

import gc
import time

import pytest

from bench.linear_time import INPUTS, STAGES, made

SMALL_KB = 8
# Linear is 2.0; a quadratic stage gives 4.0. The slack absorbs a noisy machine.
MOST_RATIO = 2.5


def best_of(stage: str, text: str, runs: int = 5) -> float:
    best = float("inf")
    for n in range(runs):
        salted = text + "\u200b" * n  # a different string each run: no cache answers
        # The collector's passes depend on what the rest of the suite left in memory.
        gc.disable()
        try:
            started = time.perf_counter()
            STAGES[stage](salted)
            best = min(best, time.perf_counter() - started)
        finally:
            gc.enable()
    return best


@pytest.mark.parametrize("stage", list(STAGES))
@pytest.mark.parametrize("unit", list(INPUTS))
def test_doubling_an_adversarial_input_at_most_doubles_the_time(stage: str, unit: str) -> None:
    small = best_of(stage, made(INPUTS[unit], SMALL_KB))
    if small < 0.002:
        small = max(small, best_of(stage, made(INPUTS[unit], SMALL_KB)))  # too quick to compare
        if small < 0.002:
            return
    double = best_of(stage, made(INPUTS[unit], 2 * SMALL_KB))
    assert double / small <= MOST_RATIO, (stage, unit, small, double)
