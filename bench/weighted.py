"""Weighted terrain: Moving AI maps with blobs of costlier ground, JPS (JPSW) against A* and tcod.

    python -m bench.weighted --maps ../shared/benchmarks/movingai [--queries 25] [--repeat 3] [--squares 8]

The public maps have one cost. :func:`blob_costs` paints discs of multipliers 1.5, 2 and 3
over a map's ground (seeded: the same map and seed give the same grid), until about
``cover`` of it is costlier than 1; ``--size`` sets how large the discs may be. ``--squares N``
paints fine-grained terrain instead (:func:`square_costs`): the ground cut into squares of N x N
cells, each of multiplier 1, 1.5, 2 or 3, so the cost changes every N cells. The queries
are each map's scenarios (the longest ``--queries`` and as many random ones); their listed
lengths do not hold on the weighted grid, so every answer is checked against A*'s cost, and on a sample against tcod's.
tcod solves the same problem (``tcod.path.CustomGraph``: a step costs its length times the
entered cell's multiplier, diagonals need both side cells free), in integer units of
1/100000 of a step. pyastar2d is timed too but solves an easier problem (diagonal steps
cost as much as straight ones, corners may be cut), so only its time is comparable.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

from bench.kernel import UNIT, best_of, count, input_errors, pick, positive, tcod_graph
from sim.maps.movingai import GROUND, ground_costs, read_map, read_scenarios
from sim.pathfinding import PathGrid, warm_up
from sim.pathfinding.warm import waiting

#: The multipliers painted over ground of multiplier 1 (the issue's "1/1.5/2/3").
BLOB_COSTS = (1.5, 2.0, 3.0)


def blob_costs(costs: np.ndarray, seed: int, cover: float = 0.4, size: int = 24) -> np.ndarray:
    """``costs`` (multipliers ``[y, x]``, 0 = blocked) with discs of :data:`BLOB_COSTS` painted on
    its passable cells until about ``cover`` of them cost more than 1. Disc radii run from 2
    to a 24th of the map's shorter side (at least 4); blocked cells stay blocked."""
    rng = np.random.default_rng(seed)
    h, w = costs.shape
    out = costs.astype(np.float64, copy=True)
    free = costs > 0
    target = cover * free.sum()
    r_max = max(4, min(h, w) // size)
    painted = np.zeros((h, w), np.bool_)
    for _ in range(100_000):
        if painted.sum() >= target:
            break
        cx, cy, r = int(rng.integers(0, w)), int(rng.integers(0, h)), int(rng.integers(2, r_max + 1))
        y0, y1, x0, x1 = max(0, cy - r), min(h, cy + r + 1), max(0, cx - r), min(w, cx + r + 1)
        yy, xx = np.mgrid[y0:y1, x0:x1]
        disc = ((xx - cx) ** 2 + (yy - cy) ** 2 <= r * r) & free[y0:y1, x0:x1]
        out[y0:y1, x0:x1][disc] = BLOB_COSTS[int(rng.integers(0, len(BLOB_COSTS)))]
        painted[y0:y1, x0:x1] |= disc
    return out


def square_costs(costs: np.ndarray, seed: int, side: int = 8) -> np.ndarray:
    """``costs`` (multipliers ``[y, x]``, 0 = blocked) with its passable cells cut into squares of
    ``side`` x ``side`` cells (aligned to the map's corner), each square one multiplier of 1 and
    :data:`BLOB_COSTS` drawn with equal odds: terrain whose cost changes every ``side`` cells."""
    rng = np.random.default_rng(seed)
    h, w = costs.shape
    choices = np.array((1.0, *BLOB_COSTS))
    tiles = choices[rng.integers(0, choices.size, size=(-(-h // side), -(-w // side)))]
    painted = np.repeat(np.repeat(tiles, side, axis=0), side, axis=1)[:h, :w]
    return np.where(costs > 0, costs * painted, 0.0)


def run_map(path: Path, n: int, repeat: int, seed: int, rng: np.random.Generator, size: int = 24,
            squares: int = 0) -> list[dict]:  # fmt: skip
    """Per query: A*, JPS and tcod times (best of ``repeat``), expansions, and whether JPS's
    and tcod's costs equal A*'s. The terrain: blobs (:func:`blob_costs`, radii up to 1/``size``),
    or with ``squares`` > 0 squares of that side (:func:`square_costs`)."""
    import pyastar2d
    import tcod.path

    chars = read_map(path)
    ground = ground_costs(chars)
    costs = square_costs(ground, seed, squares) if squares else blob_costs(ground, seed, size=size)
    scens = [s for s in read_scenarios(path.with_name(path.name + ".scen"))
             if chars[s.start[1], s.start[0]] in GROUND and chars[s.goal[1], s.goal[0]] in GROUND]  # fmt: skip
    grid = PathGrid(costs)
    grid.blocks()  # JPSW's successor table, made before the timing (its time is printed)
    grid.landmarks()  # and the landmarks' table (printed too)
    with waiting():  # (their kernel compiled or loaded here, not answered by the plain-Python search)
        grid.search(scens[0].start, scens[0].goal, heuristic="landmarks")
    graph = tcod_graph(np.round(costs * 2).astype(np.int32))  # the blobs' multipliers are halves: twice is whole
    weights = np.where(costs > 0, costs, np.inf).astype(np.float32)
    rows = []
    for s in pick(scens, n, rng):
        row = {"map": path.stem, "setup_ms": grid.jps_table_ms, "lm_ms": grid.landmarks_ms}
        res = {}
        for algo in ("astar", "jps"):
            row[algo], res[algo] = best_of(lambda a=algo, s=s: grid.search(s.start, s.goal, algorithm=a), repeat)
            row[algo + "_exp"] = res[algo].expanded
        row["jps_ok"] = abs(res["jps"].cost - res["astar"].cost) <= 1e-9 * max(1.0, res["astar"].cost)
        row["lm"], lm = best_of(lambda s=s: grid.search(s.start, s.goal, heuristic="landmarks"), repeat)
        row["lm_ok"] = abs(lm.cost - res["astar"].cost) <= 1e-9 * max(1.0, res["astar"].cost)

        def tcod_query(s=s):
            pf = tcod.path.Pathfinder(graph)
            pf.add_root((s.start[1], s.start[0]))
            pf.path_to((s.goal[1], s.goal[0]))
            return pf.distance[s.goal[1], s.goal[0]] / UNIT / 2  # (in halves of a multiplier)

        row["tcod"], cost = best_of(tcod_query, repeat)
        row["tcod_ok"] = abs(cost - res["astar"].cost) <= 1e-4 * max(1.0, res["astar"].cost)  # its integer units
        row["pyastar2d"], _ = best_of(lambda s=s: pyastar2d.astar_path(
            weights, (s.start[1], s.start[0]), (s.goal[1], s.goal[0]), allow_diagonal=True), repeat)  # fmt: skip
        rows.append(row)
    return rows


def summary(name: str, rows: list[dict]) -> str:
    med = {k: statistics.median(r[k] for r in rows) * 1e6 for k in ("astar", "jps", "tcod", "pyastar2d")}
    exp = {k: statistics.median(r[k + "_exp"] for r in rows) for k in ("astar", "jps")}
    ok = {k: sum(r[k + "_ok"] for r in rows) / len(rows) for k in ("jps", "tcod")}
    return (
        f"{name:<16}{len(rows):>4} {med['astar']:>9.0f} {med['jps']:>9.0f} {med['tcod']:>9.0f} "
        f"{med['pyastar2d']:>9.0f} {exp['astar']:>8.0f} {exp['jps']:>8.0f} {med['jps'] / med['astar']:>8.3f} "
        f"{med['jps'] / med['tcod']:>8.3f} {med['jps'] / med['pyastar2d']:>8.3f}   {ok['jps']:.0%}/{ok['tcod']:.0%}"
    )


def run(maps: list[Path], queries: int, repeat: int, seed: int, size: int = 24, demo: bool = True,
        squares: int = 0) -> None:  # fmt: skip
    """Print the weighted table for ``maps`` (per map and pooled), then the demo's own queries."""
    rng = np.random.default_rng(seed)
    terrain = (f"squares of {squares}x{squares} cells of 1/1.5/2/3" if squares
               else f"blobs of 1.5/2/3 over 40 % of the ground, radii up to 1/{size} of the side")  # fmt: skip
    print(f"weighted terrain ({terrain}): median µs per query; exp = expansions;")
    print("ratios of medians (pya = pyastar2d, an easier problem); equal = share of JPSW / tcod costs equal to A*'s")
    print(f"{'map':<16}{'n':>4} {'A* µs':>9} {'JPSW µs':>9} {'tcod µs':>9} {'pyastar2d':>9} {'A* exp':>8} "
          f"{'JPSW exp':>8} {'JPSW/A*':>8} {'/tcod':>8} {'/pya':>8}   equal")  # fmt: skip
    pooled: list[dict] = []
    setup = []
    for path in maps:
        rows = run_map(path, queries, repeat, seed, rng, size, squares)
        pooled += rows
        setup.append(rows[0]["setup_ms"] if rows else 0.0)
        print(summary(path.stem, rows), flush=True)
    print(summary("POOLED", pooled))
    print(f"JPSW's successor table (made on the first JPS search of a weighted grid): median "
          f"{statistics.median(setup):.0f} ms a map, at most {max(setup):.0f} ms")  # fmt: skip
    lm, astar = (statistics.median(r[k] for r in pooled) * 1e6 for k in ("lm", "astar"))
    made = [r["lm_ms"] for r in pooled]
    print(f"A* with heuristic='landmarks' (sim.pathfinding.landmarks): pooled {lm:.0f} µs ({lm / astar:.3f}x A*), "
          f"costs equal to A*'s {sum(r['lm_ok'] for r in pooled) / len(pooled):.0%}; its table made in a median "
          f"{statistics.median(made):.0f} ms a map, at most {max(made):.0f}")  # fmt: skip
    if demo:
        demo_queries()


def demo_queries(agents: int = 2000, seed: int = 1) -> None:
    """The demo's wander queries on its maps, per species: A* against JPS (JPSW on weighted
    terrain) in one ``search_many`` each, median of 5 runs, costs checked equal."""
    from sim.config import load_config
    from sim.maps import load_map, resolve_map
    from sim.simulation import Simulation, species_counts

    config = load_config()
    print("the demo's wander queries (one species' batch, 1 thread): µs per query, expansions")
    for name in ("island", "archipelago", "lagoon"):
        sim = Simulation(config, load_map(resolve_map(name)), counts=species_counts(config, agents))
        rng = np.random.default_rng(seed)
        for sp in sim.species:
            mine = np.flatnonzero(sim.agents.species == sp.index)
            goals, ok = sp.pick_goals(sim.agents.cell[mine], rng)
            starts, goals = sim.agents.cell[mine][ok], goals[ok]
            opts = {"diagonal": sp.astar.diagonal, "max_nodes": sp.astar.max_nodes, "threads": 1}
            (ta, a), (tj, j) = (_batch_median(sp.grid, starts, goals, algo, opts) for algo in ("astar", "jps"))
            assert (a.found == j.found).all() and np.allclose(a.cost[a.found], j.cost[a.found], rtol=1e-9)
            k = max(1, len(starts))
            winner = "JPS" if tj < ta else "A*"
            chosen = "JPS" if sp.search == "jps" else "A*"  # the map's choice (its 'search'), as the demo runs
            print(f"{name:<12}{sp.key:<8}{len(starts):>6} queries  A* {ta / k * 1e6:6.1f} µs "
                  f"({a.expanded.mean():4.0f} exp)  JPS {tj / k * 1e6:6.1f} µs "
                  f"({j.expanded.mean():4.0f} exp)  {winner:>3} wins, the map chooses {chosen}"
                  f"{'' if sp.grid.uniform else ' (weighted: JPSW)'}")  # fmt: skip


def _batch_median(grid: PathGrid, starts: np.ndarray, goals: np.ndarray, algorithm: str, opts: dict):
    grid.search_many(starts, goals, algorithm=algorithm, **opts)  # tables made, kernels loaded
    times, out = [], None
    for _ in range(5):
        t, out = best_of(lambda: grid.search_many(starts, goals, algorithm=algorithm, **opts), 1)
        times.append(t)
    return statistics.median(times), out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--maps", type=Path, required=True, help="folder with NAME.map and NAME.map.scen files")
    ap.add_argument("--queries", type=positive, default=25, help="longest N plus N random per map")
    ap.add_argument("--repeat", type=positive, default=3, help="runs per query; the fastest counts")
    ap.add_argument("--seed", type=int, default=1, help="seeds the blobs and the random queries")
    ap.add_argument("--size", type=positive, default=24, help="blob radii up to 1/SIZE of the map's shorter side")
    ap.add_argument(
        "--squares",
        type=count,
        default=0,
        help="fine-grained terrain instead of blobs: squares of SQUARES cells a side (0: blobs)",
    )
    ap.add_argument("--no-demo", action="store_true", help="leave out the demo's own queries")
    args = ap.parse_args(argv)
    maps = sorted(args.maps.glob("*.map"))
    if not maps:
        print(f"error: no .map files in {args.maps}", file=sys.stderr)
        return 2
    warm_up(("astar", "jps"), fields=False)
    with input_errors():
        run(maps, args.queries, args.repeat, args.seed, args.size, not args.no_demo, args.squares)
    return 0


if __name__ == "__main__":
    sys.exit(main())
