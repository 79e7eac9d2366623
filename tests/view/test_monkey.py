"""The window under random input (bench.monkey): no key, click, drag, wheel or resize sequence raises."""

from __future__ import annotations

from bench.monkey import run


def test_the_window_survives_random_input():
    # (this seed raised in compare mode at frame 243 before N and 1-3 emptied the replay's steps
    # with its runs; the exact sequences have tests of their own in test_search_views.py)
    assert run(4, 300)
