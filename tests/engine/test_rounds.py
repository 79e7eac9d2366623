"""The engine's rounds: several kinds of agent, each on its own grid, searched in one compiled
call; the answers are each kind's batch search's, on one thread or several."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import sim.pathfinding.rounds as engine_rounds
from sim.pathfinding import STATUS_OTHER_REGION, AStar, RoundKind, SearchRound, gather, label_regions
from sim.pathfinding.clock import monotonic_s


def kinds(jumping: tuple[bool, ...] = ()) -> tuple[np.ndarray, list[RoundKind]]:
    """A 60x40 map of two terrains with a wall: walkers (land only, two regions), flyers (all,
    paths pulled straight) and, with ``jumping``, swimmers (water only, uniform); kind ``i``
    searches with JPS where ``jumping[i]`` (JPSW on the flyers' weighted grid)."""
    rng = np.random.default_rng(5)
    terrain = (rng.random((40, 60)) < 0.3).astype(np.uint8)  # 0 land, 1 water
    terrain[:, 30] = 2  # a wall: land cut in two for walkers, not for flyers
    walker = AStar(terrain, terrain_costs={0: 1.0})
    flyer = AStar(terrain, terrain_costs={0: 1.0, 1: 1.0, 2: 2.0})
    ks = [
        RoundKind(walker, label_regions(walker.grid.costs, walker.diagonal)[0]),
        RoundKind(flyer, label_regions(flyer.grid.costs, flyer.diagonal)[0], straight=True),
    ]
    if jumping:
        swimmer = AStar(terrain, terrain_costs={1: 1.0})
        ks.append(RoundKind(swimmer, label_regions(swimmer.grid.costs, swimmer.diagonal)[0]))
    for kind, jumps in zip(ks, jumping, strict=False):
        kind.astar.use_jps = jumps  # type: ignore[misc]  # (this instance only)
    return terrain, ks


@pytest.mark.parametrize(
    ("threads", "jumping"),
    [(1, ()), (2, ()), (1, (True, False, False)), (2, (False, True, False)), (1, (False, False, True))],
)
def test_a_round_answers_what_each_kinds_batch_answers(threads, jumping):
    # With a kind that jumps, every kind of the round is compiled with JPS's grid data (the others
    # get a stand-in, rounds._build): each kind must still get its own search's answers, JPS's and
    # JPSW's, and uniform A*'s (the bucket queue) and weighted A*'s beside them.
    _terrain, ks = kinds(jumping)
    rng = np.random.default_rng(threads)
    n = 400
    starts = np.stack((rng.integers(0, 60, n), rng.integers(0, 40, n)), axis=1).astype(np.int32)
    goals = np.stack((rng.integers(0, 60, n), rng.integers(0, 40, n)), axis=1).astype(np.int32)
    kind_of = rng.integers(0, len(ks), n)
    res = SearchRound(threads=threads).run(ks, kind_of, starts, goals)
    assert res.shape.calls == ((n,) if threads == 1 else (n // 2, n // 2))
    for s, kind in enumerate(ks):
        mine = np.flatnonzero(kind_of == s)
        labels = kind.labels
        here = labels[starts[mine, 1], starts[mine, 0]]
        same = (here != 0) & (here == labels[goals[mine, 1], goals[mine, 0]])
        assert (res.status[mine[~same]] == STATUS_OTHER_REGION).all()
        want = kind.astar.search_many(starts[mine[same]], goals[mine[same]], threads=1)
        plain = kind.astar.grid.search_many(starts[mine[same]], goals[mine[same]], threads=1)  # A*
        assert np.allclose(want.cost, plain.cost, rtol=1e-12)  # (JPS's costs are A*'s)
        paths, offsets = want.paths, want.offsets
        if kind.straight:
            paths, offsets = kind.astar.grid.smooth_many(paths, offsets)
        for q, j in enumerate(mine[same]):
            assert res.status[j] == want.status[q] and res.expanded[j] == want.expanded[q]
            assert res.cost[j] == pytest.approx(want.cost[q], rel=1e-12)
            assert res.path(j).tolist() == paths[offsets[q] : offsets[q + 1]].tolist()
    assert (res.status != STATUS_OTHER_REGION).sum() > n // 3


def test_a_round_keeps_what_it_compiled_until_a_kind_or_the_terrain_changes():
    _terrain, ks = kinds()
    rounds = SearchRound()
    first = rounds.prepared(ks)
    assert rounds.prepared(ks) == first and rounds.builds == 1
    ks[0].astar.max_nodes = 9  # a setting the engine reads at each search
    assert rounds.prepared(ks)[0].max_nodes == 9 and rounds.builds == 2
    ks[0].astar.max_nodes = int("9")  # an equal value: kept
    assert rounds.prepared(ks)[0].max_nodes == 9 and rounds.builds == 2
    # Anything else the compiled kinds are made of: each is a new build, then kept.
    changes = [
        lambda: ks.__setitem__(1, ks[1]._replace(labels=ks[1].labels.copy())),  # equal contents, new array
        lambda: ks.__setitem__(0, ks[0]._replace(straight=not ks[0].straight)),
        lambda: setattr(ks[1].astar, "heuristic_name", "zero" if ks[1].astar.heuristic_name != "zero" else "octile"),
        lambda: ks.pop(),
    ]
    for j, change in enumerate(changes):
        change()
        rounds.prepared(ks)
        assert rounds.builds == 3 + j
        rounds.prepared(ks)
        assert rounds.builds == 3 + j
    rounds.prepared(ks, jps=False)
    assert rounds.builds == 3 + len(changes)


def test_a_round_lets_go_of_the_gil_while_it_searches():
    # A round's parts run on several threads at once only if the compiled call releases the
    # GIL. Checked on the compiled function itself, not by timing threads (a busy machine
    # may not schedule a watching thread when a timing test expects it to).
    assert engine_rounds._round.targetoptions.get("nogil") is True
    _terrain, ks = kinds()
    rounds = SearchRound(threads=1)
    cells = np.zeros((300, 2), np.int32)
    rounds.run(ks, np.zeros(300, np.int64), cells, cells)
    assert rounds.shape.calls == (300,)  # served by one call of the round ...
    assert engine_rounds._round.signatures  # ... that is that dispatcher's compiled code


def test_the_compiled_clock_reads_seconds_and_goes_forward():
    # The rounds time each species with it, inside compiled code and without the GIL. Its
    # readings are bracketed by Python's clock (the same monotonic clock), so however slow or
    # busy the machine, the interval it measures lies within Python's.
    # No sleep: the inner interval is spun until Python's clock has moved on 10 ms, so its length
    # is known whatever the machine does meanwhile.
    p0 = time.perf_counter()
    t0 = monotonic_s()
    q0 = q1 = time.perf_counter()
    while q1 - q0 < 0.01:
        q1 = time.perf_counter()
    t1 = monotonic_s()
    p1 = time.perf_counter()
    assert (q1 - q0) - 1e-6 <= t1 - t0 <= (p1 - p0) + 1e-6  # seconds, as Python's clock


class _World:
    """A terrain that records its changes (as ``sim.world.World`` does)."""

    def __init__(self, terrain: np.ndarray) -> None:
        self.terrain, self.revision, self.log = terrain, 0, []

    def paint(self, x0: int, y0: int, x1: int, y1: int, value: int) -> None:
        self.terrain[y0:y1, x0:x1] = value
        self.revision += 1
        self.log.append((self.revision, (x0, y0, x1, y1)))

    def changes_since(self, revision: int) -> list[tuple[int, int, int, int]]:
        return [rect for at, rect in self.log if at > revision]


class _Watched(AStar):
    """A kind with a per-edge hook (so a round serves it job by job, its batch split across the
    threads), whose cost grid notes the threads that brought it up to date."""

    threads: list[int]

    def cost(self, source, target):
        return super().cost(source, target)

    def cost_grid(self, terrain):
        self.threads.append(threading.get_ident())
        return super().cost_grid(terrain)


def test_a_round_brings_each_grid_up_to_date_before_its_threads_search_it():
    """Found by a fuzz of rounds with both cores busy (2026-12-06): after a paint, a kind served
    job by job had its two threads' first searches each bring the grid up to date; one found the
    change already taken by the other, half applied, and searched the old costs (a cost of 8.66
    where the optimum was 9.49). Now the grids are brought up to date in the calling thread."""
    world = _World(np.zeros((12, 16), np.uint8))
    kind = _Watched(world, terrain_costs={0: 1.0, 1: 4.0})
    kind.threads = []
    kind.sync()
    world.paint(3, 0, 4, 11, 1)  # a costly wall across, with a gap at the bottom
    kind.threads.clear()
    n = 2 * engine_rounds.MIN_SPLIT
    rng = np.random.default_rng(3)
    starts = np.stack((rng.integers(0, 3, n), rng.integers(0, 12, n)), axis=1).astype(np.int32)
    goals = np.stack((rng.integers(5, 16, n), rng.integers(0, 12, n)), axis=1).astype(np.int32)
    labels = np.ones((12, 16), np.int32)
    res = SearchRound(threads=2).run([RoundKind(kind, labels)], np.zeros(n, np.int64), starts, goals)
    assert res.shape.jobs == 2  # (the kind's requests split across the two threads)
    assert kind.threads == [threading.get_ident()]  # brought up to date once, here
    fresh = _World(world.terrain.copy())
    want = [AStar(fresh.terrain, terrain_costs={0: 1.0, 1: 4.0}).search(tuple(s), tuple(g)).cost
            for s, g in zip(starts.tolist(), goals.tolist(), strict=True)]  # fmt: skip
    np.testing.assert_allclose(res.cost, want, rtol=1e-12)


def test_a_kinds_grid_brought_up_to_date_from_two_threads_is_never_searched_half_done():
    """One thread brings the grid up to date (held inside its cost grid until told to go on);
    another asks for the grid meanwhile: it waits for the first and gets the new costs, never
    the old ones or a grid half updated."""
    world = _World(np.zeros((6, 8), np.uint8))
    inside, go_on = threading.Event(), threading.Event()

    class Held(AStar):
        def cost_grid(self, terrain):
            if held:
                inside.set()
                go_on.wait(10)
            return super().cost_grid(terrain)

    held = False
    kind = Held(world, terrain_costs={0: 1.0, 1: 3.0})
    kind.sync()
    world.paint(0, 0, 8, 6, 1)  # every cell now costs 3
    held = True
    first = threading.Thread(target=kind.sync)
    first.start()
    assert inside.wait(10)
    seen: list[np.ndarray] = []
    second = threading.Thread(target=lambda: seen.append(kind.grid.costs.copy()))
    second.start()
    second.join(0.2)  # (if it returns meanwhile, it did not wait: what it saw is checked below)
    held = False
    go_on.set()
    first.join(10)
    second.join(10)
    assert seen and (seen[0] == 3.0).all()


def _bad_requests() -> list[tuple[str, dict, type, str]]:
    ok = {"kind_of": np.array([0, 1]), "starts": np.array([[1, 1], [2, 2]], np.int32),
          "goals": np.array([[3, 3], [50, 30]], np.int32), "rows": None}  # fmt: skip
    return [
        ("kind out of range", {**ok, "kind_of": np.array([0, 2])}, ValueError, "kind_of[1] is 2; kinds are numbered 0 to 1"),  # noqa: E501
        ("negative kind", {**ok, "kind_of": np.array([-1, 0])}, ValueError, "kind_of[0] is -1; kinds are numbered 0 to 1"),  # noqa: E501
        ("row out of range", {**ok, "rows": np.array([0, 2])}, ValueError, "rows[1] is 2; starts and goals have rows 0 to 1"),  # noqa: E501
        ("negative row", {**ok, "rows": np.array([-1, 0])}, ValueError, "rows[0] is -1; starts and goals have rows 0 to 1"),  # noqa: E501
        ("start off the map", {**ok, "starts": np.array([[1, 1], [60, 2]], np.int32)}, ValueError,
         "request 1: start (60, 2) is outside the grid of width 60 and height 40"),
        ("goal off the map", {**ok, "goals": np.array([[3, -1], [5, 5]], np.int32)}, ValueError,
         "request 0: goal (3, -1) is outside the grid of width 60 and height 40"),
        ("float kinds", {**ok, "kind_of": np.array([0.0, 1.0])}, TypeError, "kind_of must be a 1-D numpy integer array, got dtype float64"),  # noqa: E501
        ("three columns", {**ok, "starts": np.zeros((2, 3), np.int32)}, ValueError, "starts must have shape (k, 2), got (2, 3)"),  # noqa: E501
        ("unlike shapes", {**ok, "goals": np.zeros((3, 2), np.int32)}, ValueError,
         "starts and goals must have the same shape, got (2, 2) and (3, 2)"),
        ("rows too few", {**ok, "rows": np.array([0])}, ValueError, "rows and kind_of must have the same length, got 1 and 2"),  # noqa: E501
    ]  # fmt: skip


@pytest.mark.parametrize(("case", "args", "exc", "message"), _bad_requests(), ids=[c[0] for c in _bad_requests()])
def test_a_bad_request_is_one_exact_error_before_anything_is_searched(case, args, exc, message):
    # (before: a row or a cell out of range was read by compiled code without bounds checks: a
    # wrong status, or a segmentation fault; a float kind a numba TypingError of many lines)
    _terrain, ks = kinds()
    for interpreted in (False, True):
        with pytest.raises(exc) as info:
            SearchRound(threads=1).run(ks, args["kind_of"], args["starts"], args["goals"], args["rows"],
                                       interpreted=interpreted)  # fmt: skip
        assert type(info.value) is exc and str(info.value) == message


def test_a_kind_whose_labels_are_not_its_grids_is_refused_and_lists_are_taken_as_arrays():
    _terrain, ks = kinds()
    starts, goals = [[1, 1], [2, 2]], [[3, 3], [50, 30]]
    want = SearchRound(threads=1).run(ks, np.array([0, 1]), np.array(starts), np.array(goals))
    got = SearchRound(threads=1).run(ks, [0, 1], starts, goals)  # plain lists, as a script writes them
    assert got.status.tolist() == want.status.tolist() and got.cost.tolist() == want.cost.tolist()
    short = [ks[0], RoundKind(ks[1].astar, ks[1].labels[:10])]
    with pytest.raises(ValueError) as info:
        SearchRound(threads=1).run(short, np.array([0, 1]), np.array(starts), np.array(goals))
    assert str(info.value) == "kinds[1].labels must have its grid's shape (40, 60), got (10, 60)"
    with pytest.raises(TypeError) as info:
        SearchRound(threads=1).run(
            [RoundKind("walker", ks[0].labels)], np.array([0]), np.array(starts), np.array(goals)
        )
    assert str(info.value) == "kinds[0].astar must be an AStar, got 'walker'"


def test_gather_joins_a_rounds_paths_and_refuses_runs_outside_its_cells():
    _terrain, ks = kinds()
    starts, goals = np.array([[1, 1], [2, 2], [5, 1]]), np.array([[3, 3], [50, 30], [5, 9]])
    r = SearchRound(threads=1).run(ks, np.array([0, 1, 0]), starts, goals)
    cells, offsets = gather(r.paths, r.path_at, r.path_n, np.array([2, 0]))
    for k, p in enumerate((2, 0)):  # each run as the round wrote it, in the order asked
        want = r.paths[r.path_at[p] : r.path_at[p] + r.path_n[p]]
        assert cells[offsets[k] : offsets[k + 1]].tolist() == want.tolist()
    assert offsets.tolist() == [0, int(r.path_n[2]), int(r.path_n[2] + r.path_n[0])]
    assert gather(r.paths, r.path_at.tolist(), r.path_n.tolist(), [1])[0].tolist() == gather(
        r.paths, r.path_at, r.path_n, np.array([1]))[0].tolist()  # fmt: skip
    # (before: numpy's IndexError, a wrapped index (pos -1 read the last run) or "negative dimensions")
    c, at, n = np.arange(10), np.array([0, 4]), np.array([3, 5])
    bad = [((c, at, n, np.array([2])), ValueError, "pos 2 is outside the 2 runs"),
           ((c, at, n, np.array([-1])), ValueError, "pos -1 is outside the 2 runs"),
           ((c, at, np.array([3, -1]), np.array([0])), ValueError, "run 1 (at 4, n -1) is not inside the 10 cells"),
           ((c, at, np.array([3, 7]), np.array([0])), ValueError, "run 1 (at 4, n 7) is not inside the 10 cells"),
           ((c, at, np.array([3]), np.array([0])), ValueError, "at and n must have the same shape, got (2,) and (1,)"),
           ((c, at, n, np.array([0.5])), TypeError, "pos must be a 1-D numpy integer array, got dtype float64"),
           ((c.reshape(2, 5), at, n, np.array([0])), ValueError, "cells must have shape (m,), got (2, 5)")]  # fmt: skip
    for args, exc, message in bad:
        with pytest.raises(exc) as info:
            gather(*args)
        assert type(info.value) is exc and str(info.value) == message


def test_an_empty_round_is_an_empty_answer_and_a_path_is_indexed_as_a_list_is():
    # (before: a round of no requests and no kinds raised "zip() argument 2 is shorter than argument 1")
    none = np.zeros((0, 2), np.int32)
    _terrain, ks = kinds()
    for given in ([], ks):
        r = SearchRound(threads=1).run(given, np.zeros(0, np.int64), none, none)
        assert r.status.size == r.cost.size == r.path_at.size == r.paths.size == 0
        with pytest.raises(ValueError, match=r"^request 0 is outside the round of 0 requests$"):
            r.path(0)
    starts, goals = np.array([[1, 1], [2, 2], [5, 1]]), np.array([[3, 3], [50, 30], [5, 9]])
    r = SearchRound(threads=1).run(ks, np.array([0, 1, 0]), starts, goals)
    assert r.path(-1).tolist() == r.path(2).tolist() and r.path(-3).tolist() == r.path(np.int64(0)).tolist()
    for bad in (3, -4):
        with pytest.raises(ValueError, match=rf"^request {bad} is outside the round of 3 requests$"):
            r.path(bad)
    with pytest.raises(TypeError, match=r"^j must be an int, got 1.0$"):
        r.path(1.0)
