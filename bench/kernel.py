"""Search-kernel benchmark on the Moving AI maps, against peers measured in the same run.

    python -m bench.kernel --maps ../shared/benchmarks/movingai [--queries 25] [--repeat 3]

Per map: the 25 longest scenarios and 25 random others (seeded), each solved by
``PathGrid.search`` (what ``find_path`` runs after preparing the grid) with A* and with
JPS, by tcod (``tcod.path.CustomGraph``: 8 edges, diagonals conditioned on both
orthogonal cells being free, i.e. the same no-corner-cutting problem; costs in integer
units of 1/100000) and by pyastar2d (an easier problem: diagonal steps cost 1 and
corners may be cut, so only its time is comparable). The pure-Python peer ``pathfinding``
(AStarFinder, only_when_no_obstacle: the same problem) runs on ``--python-queries`` of the
random queries per map, timed against the engine's A* on the same queries. Prints medians of per-query times
(each query's best of ``--repeat`` runs), expansions, ns per expansion, the ratio to
tcod, and the share of answers within the scenario's printed precision of the optimum.
Under the pooled line: each algorithm's whole call and its compiled kernel alone ("search
only": no options, point checks or result object) as ratios to pyastar2d.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import math
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from sim.maps.movingai import GROUND, Scenario, ground_costs, read_map, read_scenarios
from sim.pathfinding import PathGrid, warm_up
from sim.pathfinding.plans import padded_ends
from sim.pathfinding.warm import waiting
from sim.support.checks import InputError

UNIT = 100_000  # tcod works in integers
TCOD_ROUNDING = 2.6e-6  # relative: round(UNIT * √2) / (UNIT * √2) = 1 - 2.5e-6


def pick(scens: list[Scenario], n: int, rng: np.random.Generator) -> list[Scenario]:
    longest = sorted(scens, key=lambda s: -s.optimal)[:n]
    rest = [s for s in scens if s not in longest]
    others = [rest[i] for i in rng.choice(len(rest), size=min(n, len(rest)), replace=False)]
    return longest + others


def best_of(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def tcod_graph(cost: np.ndarray):
    """tcod's graph of the engine's problem for integer multipliers ``cost`` (int32 ``[y, x]``,
    0 = blocked): a step costs its length in units of ``1 / UNIT`` times the entered cell's
    multiplier, diagonals need both side cells free; the heuristic scaled by the smallest one."""
    import tcod.path

    h, w = cost.shape
    free = cost > 0
    graph = tcod.path.CustomGraph((h, w))
    graph.add_edges(edge_map=[[0, UNIT, 0], [UNIT, 0, UNIT], [0, UNIT, 0]], cost=cost)
    padded = np.pad(free, 1)
    for dy in (-1, 1):
        for dx in (-1, 1):
            # Edge (y, x) -> (y+dy, x+dx) only if (y+dy, x) and (y, x+dx) are free.
            side_y = padded[1 + dy : 1 + dy + h, 1 : 1 + w]
            side_x = padded[1 : 1 + h, 1 + dx : 1 + dx + w]
            graph.add_edge((dy, dx), round(UNIT * 2**0.5), cost=cost, condition=(side_y & side_x).astype(np.int8))
    lo = int(cost[free].min()) if free.any() else 1
    graph.set_heuristic(cardinal=UNIT * lo, diagonal=round(UNIT * 2**0.5) * lo)
    return graph


def python_peer(costs: np.ndarray, scens: list[Scenario], grid: PathGrid) -> list[dict]:
    """The pure-Python ``pathfinding`` package on ``scens``, and the engine's A* on the same ones."""
    from pathfinding.core.diagonal_movement import DiagonalMovement
    from pathfinding.core.grid import Grid
    from pathfinding.finder.a_star import AStarFinder

    pf_grid = Grid(matrix=(costs > 0).astype(int).tolist())
    finder = AStarFinder(diagonal_movement=DiagonalMovement.only_when_no_obstacle, time_limit=30)
    rows = []
    for s in scens:
        t0 = time.perf_counter()
        path, _runs = finder.find_path(pf_grid.node(*s.start), pf_grid.node(*s.goal), pf_grid)
        t_pf = time.perf_counter() - t0
        pf_grid.cleanup()
        cost = sum(np.hypot(b.x - a.x, b.y - a.y) for a, b in itertools.pairwise(path)) if path else np.inf
        t_ours, _ = best_of(lambda s=s: grid.search(s.start, s.goal), 3)
        rows.append({"pf": t_pf, "ours": t_ours, "pf_ok": abs(cost - s.optimal) <= s.tolerance})
    return rows


def run_map(
    path: Path, n: int, repeat: int, rng: np.random.Generator, python_queries: int
) -> tuple[list[dict], list[dict]]:
    import pyastar2d
    import tcod.path

    chars = read_map(path)
    costs = ground_costs(chars)
    scens = [
        s
        for s in read_scenarios(path.with_name(path.name + ".scen"))
        if chars[s.start[1], s.start[0]] in GROUND and chars[s.goal[1], s.goal[0]] in GROUND
    ]
    grid = PathGrid(costs)
    graph = tcod_graph((costs > 0).astype(np.int32))
    weights = np.where(costs > 0, 1.0, np.inf).astype(np.float32)
    rows = []
    picked = pick(scens, n, rng)
    grid.jump_table()  # JPS+'s table, made before the timing (its own time is printed)
    setup_ms, repair_ms = grid.jump_table_ms, stroke_repairs(grid, costs, rng)
    grid.landmarks()  # the landmarks' table too (printed: landmarks_line)
    landmarks_ms = grid.landmarks_ms
    with waiting():  # their kernel compiled or loaded here, not answered by the plain-Python search
        grid.search(scens[0].start, scens[0].goal, heuristic="landmarks")
    alone = {algo: kernel_alone(grid, algo) for algo in ("astar", "jps", "jps+")}
    for s in picked:
        row = {"map": path.stem, "optimal": s.optimal, "setup_ms": setup_ms, "repair_ms": repair_ms,
               "lm_ms": landmarks_ms, "table_bytes": grid.jump_table().nbytes / grid.cells,
               "side": max(costs.shape)}  # fmt: skip
        for algo in ("astar", "jps", "jps+"):
            t, r = best_of(lambda a=algo, s=s: grid.search(s.start, s.goal, algorithm=a), repeat)
            row[algo] = t
            row[algo + "_exp"] = r.expanded
            row[algo + "_ok"] = abs(r.cost - s.optimal) <= s.tolerance
            st = padded_ends(s.start, s.goal, grid.width, grid.height)
            row[algo + "_kernel"], out = best_of(lambda a=algo, st=st: alone[a](*st), repeat)
            row[algo + "_ok"] &= abs(found_cost(out) - s.optimal) <= s.tolerance

        row["lm"], r = best_of(lambda s=s: grid.search(s.start, s.goal, heuristic="landmarks"), repeat)
        row["lm_exp"], row["lm_ok"] = r.expanded, abs(r.cost - s.optimal) <= s.tolerance

        def tcod_query(s=s):
            pf = tcod.path.Pathfinder(graph)
            pf.add_root((s.start[1], s.start[0]))
            pf.path_to((s.goal[1], s.goal[0]))
            return pf.distance[s.goal[1], s.goal[0]] / UNIT

        row["tcod"], cost = best_of(tcod_query, repeat)
        # tcod counts in integer units: a diagonal is round(UNIT * √2), 2.6e-6 of a step short.
        row["tcod_ok"] = abs(cost - s.optimal) <= s.tolerance + TCOD_ROUNDING * s.optimal
        row["pyastar2d"], _ = best_of(
            lambda s=s: pyastar2d.astar_path(
                weights, (s.start[1], s.start[0]), (s.goal[1], s.goal[0]), allow_diagonal=True
            ),
            repeat,
        )
        rows.append(row)
    py_rows = python_peer(costs, picked[n : n + python_queries], grid) if python_queries else []
    return rows, py_rows


def kernel_alone(grid: PathGrid, algorithm: str):
    """``grid.search(..., algorithm=algorithm)``'s compiled kernel alone, without the Python
    around it (options, point checks, the result object): a function of the start and goal as
    padded cells (``plans.padded_ends``) that returns the kernel's answer, ``(status, expanded, cost,
    ...)``. The workspace is the engine's own (grown by its searches)."""
    from sim.pathfinding import kernel as _k
    from sim.pathfinding.options import kernel_params, options_of
    from sim.pathfinding.workspace import workspace

    opts = options_of(None, "no-corner-cutting", None, 1.0, algorithm, None)
    params = kernel_params(opts, grid.min_cost, grid.uniform, grid.cells)
    ws = workspace()
    ws.ensure(grid.cells, jps=_k.jumps(params.mode))
    args, p = grid.kernel_args(opts.rule, _k.jump_data(params.mode)), params.flat
    empty2, empty1 = np.zeros((0, 0), np.int32), np.zeros(0, np.int32)

    def run(s: int, t: int) -> tuple:
        out = _k.search_one(*args, s, t, p, ws.index, ws.next_gen(), ws.hgen, 0, empty2, empty1)
        ws.hgen = out[5]  # (as the engine keeps it)
        return out

    return run


def found_cost(out: tuple) -> float:
    """The cost in a kernel's answer (:func:`kernel_alone`), inf when it found no path."""
    from sim.pathfinding import kernel as _k

    return float(out[2]) if out[0] == _k.STATUS_FOUND else math.inf


def search_only(rows: list[dict]) -> str:
    """The pooled search-only figures (:func:`kernel_alone`) beside the whole call's, as ratios
    to pyastar2d (the issue's targets: A* 0.5x, JPS 0.05x, JPS+ 0.025x)."""
    pya = statistics.median(r["pyastar2d"] for r in rows) * 1e6
    parts = []
    for algo, name in (("astar", "A*"), ("jps", "JPS"), ("jps+", "JPS+")):
        whole = statistics.median(r[algo] for r in rows) * 1e6
        kernel = statistics.median(r[algo + "_kernel"] for r in rows) * 1e6
        parts.append(f"{name} {whole:.0f} µs whole call ({whole / pya:.3f}x), {kernel:.0f} µs search only "
                     f"({kernel / pya:.3f}x)")  # fmt: skip
    return f"pooled against pyastar2d ({pya:.0f} µs): " + "; ".join(parts)


def landmarks_line(rows: list[dict]) -> str:
    """A* with ``heuristic="landmarks"`` (sim.pathfinding.landmarks) against plain A*: per map the
    ratio of their medians, then pooled: the whole call, expansions, its ratio to pyastar2d, the
    share optimal and the table's time to make (per map, once; not in the queries' times)."""
    by_map: dict[str, list[dict]] = {}
    for r in rows:
        by_map.setdefault(r["map"], []).append(r)
    faster = {m: statistics.median(r["astar"] for r in rs) / statistics.median(r["lm"] for r in rs)
              for m, rs in by_map.items()}  # fmt: skip
    lm, pya = (statistics.median(r[k] for r in rows) * 1e6 for k in ("lm", "pyastar2d"))
    exp = (statistics.median(r["astar_exp"] for r in rows), statistics.median(r["lm_exp"] for r in rows))
    made = sorted(rs[0]["lm_ms"] for rs in by_map.values())
    ok = sum(r["lm_ok"] for r in rows) / len(rows)
    each = ", ".join(f"{m} {x:.1f}x" for m, x in faster.items())
    return (f"A* with heuristic='landmarks' (A* time / its time): {each}"
            + f"; pooled {lm:.0f} µs whole call ({lm / pya:.3f}x pyastar2d), {exp[1]:.0f} expansions (plain A*"
            f" {exp[0]:.0f}); optimal {ok:.0%}; its table made in a median {statistics.median(made):.0f} ms"
            f" (at most {made[-1]:.0f}) a map")  # fmt: skip


def jump_table_line(rows: list[dict]) -> str:
    """JPS+ against JPS per map (the ratio of their medians), the table's bytes a cell and its
    median setup, on the maps of 512 cells a side where there are any (issue #43's bars: 1.8x
    on open maps, 16 bytes, 15 ms)."""
    by_map: dict[str, list[dict]] = {}
    for r in rows:
        by_map.setdefault(r["map"], []).append(r)
    ratios = {m: statistics.median(r["jps"] for r in rs) / statistics.median(r["jps+"] for r in rs)
              for m, rs in by_map.items()}  # fmt: skip
    big = [rs[0] for rs in by_map.values() if rs[0]["side"] == 512] or [rs[0] for rs in by_map.values()]
    setup = statistics.median(r["setup_ms"] for r in big)
    table = max(r["table_bytes"] for r in rows)
    which = f"{len(big)} map{'s' * (len(big) != 1)}{' of 512 a side' * (big[0]['side'] == 512)}"
    return ("JPS+ against JPS (JPS time / JPS+ time): " + ", ".join(f"{m} {x:.2f}x" for m, x in ratios.items())
            + f"; median {statistics.median(ratios.values()):.2f}x; its table {table:.0f} bytes a cell, made in a"
            f" median {setup:.1f} ms ({which})")  # fmt: skip


def stroke_repairs(grid: PathGrid, costs: np.ndarray, rng: np.random.Generator, strokes: int = 5) -> float:
    """Median ms JPS+'s table takes to be repaired after a radius-5 stroke of rock (a disc
    11 cells across) at a random spot, each stroke undone after (two repairs a stroke)."""
    h, w = costs.shape
    yy, xx = np.mgrid[-5:6, -5:6]
    disc = xx * xx + yy * yy <= 25
    times = []
    for _ in range(strokes):
        x0, y0 = int(rng.integers(0, max(1, w - 11))), int(rng.integers(0, max(1, h - 11)))
        before = costs[y0 : y0 + 11, x0 : x0 + 11]
        grid.update(x0, y0, np.where(disc[: before.shape[0], : before.shape[1]], 0.0, before))
        times.append(grid.jump_repair_ms)
        grid.update(x0, y0, before)
        times.append(grid.jump_repair_ms)
    return statistics.median(times)


def summary(name: str, rows: list[dict]) -> str:
    algos = ("astar", "jps", "jps+", "tcod", "pyastar2d")
    med = {k: statistics.median(r[k] for r in rows) * 1e6 for k in algos}
    exp = {k: statistics.median(r[k + "_exp"] for r in rows) for k in ("astar", "jps")}
    ns = statistics.median(r["astar"] / max(1, r["astar_exp"]) for r in rows) * 1e9
    ok = {k: sum(r[k + "_ok"] for r in rows) / len(rows) for k in ("astar", "jps", "jps+", "tcod")}
    setup = statistics.median(r["setup_ms"] for r in rows)
    repair = statistics.median(r["repair_ms"] for r in rows)
    return (
        f"{name:<16}{len(rows):>4} {med['astar']:>9.0f} {med['jps']:>8.0f} {med['jps+']:>8.0f} {med['tcod']:>9.0f} "
        f"{med['pyastar2d']:>9.0f} {exp['astar']:>8.0f} {exp['jps']:>7.0f} {ns:>6.0f} "
        f"{med['astar'] / med['tcod']:>7.3f} {med['jps'] / med['pyastar2d']:>7.3f} "
        f"{med['jps+'] / med['pyastar2d']:>7.3f} {setup:>7.1f} {repair:>7.2f}   "
        f"{ok['astar']:.0%}/{ok['jps']:.0%}/{ok['jps+']:.0%}/{ok['tcod']:.0%}"
    )


def demo_queries(agents: int = 2000, seed: int = 1) -> None:
    """The demo's own queries (wander goals on the island, per species): one ``search_many``
    call against a loop of ``search``, same answers, median of 5 runs each."""
    from sim.config import load_config
    from sim.maps import load_map, resolve_map
    from sim.simulation import Simulation, species_counts

    config = load_config()
    sim = Simulation(config, load_map(resolve_map("island")), counts=species_counts(config, agents))
    rng = np.random.default_rng(seed)
    print("the demo's wander queries on the island (one species' batch):")
    head = ("species", "queries", "expanded", "loop µs/q", "batch µs/q", "batch 2 thr", "speed-up")
    print(f"{head[0]:<10}{head[1]:>8}{head[2]:>10}{head[3]:>11}{head[4]:>12}{head[5]:>12}{head[6]:>9}")
    for sp in sim.species:
        mine = np.flatnonzero(sim.agents.species == sp.index)
        goals, ok = sp.pick_goals(sim.agents.cell[mine], rng)
        _demo_row(sp, sim.agents.cell[mine][ok], goals[ok])


def _demo_row(sp, starts: np.ndarray, goals: np.ndarray) -> None:
    grid = sp.grid
    options = {"diagonal": sp.astar.diagonal, "max_nodes": sp.astar.max_nodes}
    pairs = list(zip(map(tuple, starts.tolist()), map(tuple, goals.tolist()), strict=True))

    def loop():
        return [grid.search(s, g, **options) for s, g in pairs]

    def batch(threads):
        return grid.search_many(starts, goals, threads=threads, **options)

    singles, one = loop(), batch(1)
    same = [one.expanded[i] == r.expanded and np.array_equal(one.path(i), r.walk_path) for i, r in enumerate(singles)]
    assert all(same)
    t_loop, t_one, t_two = (statistics.median(best_of(f, 1)[0] for _ in range(5))
                            for f in (loop, lambda: batch(1), lambda: batch(2)))  # fmt: skip
    k = len(pairs)
    print(f"{sp.key:<10}{k:>8}{one.expanded.mean():>10.0f}{t_loop / k * 1e6:>11.1f}{t_one / k * 1e6:>12.1f}"
          f"{t_two / k * 1e6:>12.1f}{t_loop / t_one:>8.1f}x")  # fmt: skip


def fields(maps: list[Path], repeat: int) -> None:
    """Distance fields: ``PathGrid.distance_field`` against ``tcod.path.dijkstra2d`` on the same grids.

    The goal is the goal of each map's longest scenario. tcod solves an easier problem
    (integer costs 2 and 3, corners may be cut); ours is the exact no-corner-cutting field.
    Each is checked: ours equals the scenario's optimal length at its start."""
    import tcod.path

    print("distance fields (one goal per map, every reachable cell): median ms of", repeat, "runs")
    print(f"{'map':<16}{'cells':>9}{'field ms':>10}{'tcod ms':>9}{'ratio':>7}{'ns/cell':>9}   exact at the start")
    ratios = []
    for path in maps:
        costs = ground_costs(read_map(path))
        scen = max(read_scenarios(path.with_name(path.name + ".scen")), key=lambda s: s.optimal)
        grid = PathGrid(costs)
        goal = scen.goal
        ours = [0.0] * repeat
        theirs = [0.0] * repeat
        for i in range(repeat):
            t0 = time.perf_counter()
            field = grid.distance_field(goal)
            ours[i] = time.perf_counter() - t0
            dist = tcod.path.maxarray(costs.shape, dtype=np.int32)
            dist[goal[1], goal[0]] = 0
            t0 = time.perf_counter()
            tcod.path.dijkstra2d(dist, (costs > 0).astype(np.int32), 2, 3, out=dist)
            theirs[i] = time.perf_counter() - t0
        cells = int(np.isfinite(field).sum())
        a, b = statistics.median(ours), statistics.median(theirs)
        ratios.append(a / b)
        exact = abs(field[scen.start[1], scen.start[0]] - scen.optimal) <= scen.tolerance
        print(f"{path.stem:<16}{cells:>9}{a * 1e3:>10.2f}{b * 1e3:>9.2f}{a / b:>7.2f}{a / cells * 1e9:>9.0f}   {exact}")
    print(f"median ratio to tcod.path.dijkstra2d: {statistics.median(ratios):.2f}")


def first_search_seconds() -> float:
    """Seconds from a new process's start to its first search's answer (kernel from cache)."""
    code = (
        "import time; t=time.perf_counter(); import numpy as np; from sim.pathfinding import find_path; "
        "g = np.ones((8, 8)); find_path(g, (0, 0), (7, 7)); find_path(g, (0, 0), (7, 7), algorithm='jps'); "
        "print(time.perf_counter()-t)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)  # fills the cache
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return float(out.stdout.strip())


def call_overhead(repeat: int = 20000) -> None:
    """The fixed cost of ``PathGrid.search`` (issue #43): an 8x8 grid's corner-to-corner query,
    the whole call as a user makes it against the compiled kernel alone on the same arguments
    (median of ``repeat`` calls each, interleaved in blocks so both see the same machine)."""
    warm_up()
    for algorithm in ("astar", "jps"):
        _overhead_of(PathGrid(np.ones((8, 8))), algorithm, repeat)


def _overhead_of(grid: PathGrid, algorithm: str, repeat: int) -> None:
    """:func:`call_overhead` for one algorithm."""
    r = grid.search((0, 0), (7, 7), algorithm=algorithm)  # options checked and kept; kernel loaded
    # (partial adds no Python frame: the kernel alone is timed through one, as before)
    alone_call = functools.partial(kernel_alone(grid, algorithm), *padded_ends((0, 0), (7, 7), 8, 8))

    def whole_call():
        return np.asarray(grid.search((0, 0), (7, 7), algorithm=algorithm).path)

    whole, alone = [], []
    for _ in range(repeat // 500):
        for fn, out in ((whole_call, whole), (alone_call, alone)):
            t0 = time.perf_counter_ns()
            for _ in range(500):
                fn()
            out.append((time.perf_counter_ns() - t0) / 500 / 1000)
    w, a = statistics.median(whole), statistics.median(alone)
    print(f"call overhead, 8x8 {algorithm}: whole call {w:.2f} µs, kernel alone {a:.2f} µs,"
          f" overhead {w - a:.2f} µs ({r.expanded} expanded)")  # fmt: skip


def positive(text: str, least: int = 1) -> int:
    """An argparse type: a whole number of at least ``least`` (else argparse's one-line error, status 2)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"expected at least {least}, got {value}")
    return value


def count(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    return positive(text, 0)


@contextmanager
def input_errors():
    """A broken map or scenario file ends the run with its one-line message and status 2."""
    try:
        yield
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--maps", type=Path, required=True, help="folder with NAME.map and NAME.map.scen files")
    ap.add_argument("--queries", type=positive, default=25, help="longest N plus N random per map")
    ap.add_argument("--repeat", type=positive, default=3, help="runs per query; the fastest counts")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--python-queries", type=count, default=5, help="queries per map for the pure-Python peer")
    args = ap.parse_args(argv)
    maps = sorted(args.maps.glob("*.map"))
    if not maps:
        print(f"error: no .map files in {args.maps}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    warm_up()  # compile/load the kernels before timing

    print("median µs per query; exp = expansions per query; ns/exp for A*; ratios of medians (pya = pyastar2d);")
    print("JPS+ setup = ms to make its table, repair = median ms to repair it after a radius-5 stroke;")
    print("optimal = share within the printed precision of the listed length (A*/JPS/JPS+/tcod)")
    print(
        f"{'map':<16}{'n':>4} {'A* µs':>9} {'JPS µs':>8} {'JPS+ µs':>8} {'tcod µs':>9} {'pyastar2d':>9} "
        f"{'A* exp':>8} {'JPS exp':>7} {'ns/exp':>6} {'A*/tcod':>7} {'JPS/pya':>7} {'JPS+/pya':>7} "
        f"{'setup':>7} {'repair':>7}   optimal"
    )
    pooled: list[dict] = []
    py_pooled: list[dict] = []
    for path in maps:
        with input_errors():
            rows, py_rows = run_map(path, args.queries, args.repeat, rng, args.python_queries)
        pooled += rows
        py_pooled += py_rows
        print(summary(path.stem, rows), flush=True)
    print(summary("POOLED", pooled))
    print(search_only(pooled))
    print(jump_table_line(pooled))
    print(landmarks_line(pooled))
    if py_pooled:
        pf = statistics.median(r["pf"] for r in py_pooled) * 1e6
        ours = statistics.median(r["ours"] for r in py_pooled) * 1e6
        ok = sum(r["pf_ok"] for r in py_pooled) / len(py_pooled)
        print(
            f"pure-Python peer pathfinding on {len(py_pooled)} random queries ({args.python_queries} per map):"
            f" median {pf:.0f} µs vs engine A* {ours:.0f} µs on the same queries ({pf / ours:.0f}x); optimal {ok:.0%}"
        )
    fields(maps, args.repeat)
    call_overhead()
    demo_queries()
    from bench import weighted  # (it borrows this module's helpers)

    print()
    weighted.run(maps, args.queries, args.repeat, args.seed)
    print(f"first search in a new process (imports + kernel from cache): {first_search_seconds():.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
