"""Which search serves a species: A*, or JPS where the map chooses it (``search`` in a YAML map,
``search.<species>`` properties in a Tiled map) or the config does (``species.<key>.search``).
Same optimal costs either way (checked against A* on the same requests); the choice survives
saving and converting; bad values are one-line errors naming file, line and key."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sim.config import ConfigError, load_config, parse_config
from sim.maps import MapData, load_map
from sim.maps.convert import convert as convert_map
from sim.maps.data import MapError
from sim.model.agents import Outcome
from sim.model.planner import Ready
from sim.prepare import jps_args, rehearsal
from sim.simulation import Simulation, searches_with_jps
from tests import helpers
from tests.conftest import ROOT
from tests.helpers import check_round, raises_exactly

TINY = "name: t\nrows: |\n  ~~~~~~\n  ~::..~\n  ~....~\n  ~~~~~~\n"


def config_with(**species_search) -> object:
    config = load_config(ROOT / "config.yaml")
    specs = {k: replace(v, search=species_search.get(k, v.search)) for k, v in config.species.items()}
    return replace(config, species=specs)


def sim_on(name: str, config=None, animals: int = 300) -> Simulation:
    return helpers.sim_on(name, animals=animals, config=config)


def test_the_shipped_maps_choose_where_jps_won_their_queries():
    assert [sp.search for sp in sim_on("island.yaml").species] == ["astar", "astar", "astar"]
    assert [sp.search for sp in sim_on("archipelago.yaml").species] == ["jps", "astar", "astar"]
    assert [sp.search for sp in sim_on("lagoon.tmx").species] == ["jps", "jps", "jps"]
    config = load_config(ROOT / "config.yaml")
    assert not searches_with_jps(config, load_map(ROOT / "maps" / "island.yaml"))
    assert searches_with_jps(config, load_map(ROOT / "maps" / "lagoon.tmx"))


@pytest.mark.parametrize("threads", [1, 2])
def test_a_species_on_jps_gets_the_costs_a_star_gets(threads):
    """The lagoon's cows and birds (weighted: JPSW) and fish (uniform) search with JPS in the
    one-call round; the round equals the engine's JPS answers, and every cost equals A*'s."""
    sim = sim_on("lagoon.tmx", animals=400)
    sim.step(0.1)
    kinds = sim.planner.prepared()
    assert [k.jumps for k in kinds] == [True, True, True]
    check_round(sim, threads, seed=5)  # the round is the engine's (JPS) answer, path for path
    rows = np.arange(sim.agents.n, dtype=np.int64)
    jps = sim.planner.search_rows(rows, False)
    sim.planner.kernels = Ready(frozenset({"jps-round"}))  # while another process compiles JPS
    assert [k.jumps for k in sim.planner.prepared()] == [False, False, False]
    astar = sim.planner.search_rows(rows, False)
    assert (jps.outcome == astar.outcome).all() and (jps.outcome == int(Outcome.FOUND)).sum() > 100
    found = jps.outcome == int(Outcome.FOUND)
    np.testing.assert_allclose(jps.cost[found], astar.cost[found], rtol=1e-9)
    assert jps.expanded[found].sum() < astar.expanded[found].sum() / 2  # jump points, not cells


def test_the_config_overrules_the_map():
    sim = sim_on("lagoon.tmx", config_with(cow="astar", water="astar"))
    assert [sp.search for sp in sim.species] == ["astar", "jps", "astar"]
    assert [sp.search for sp in sim_on("island.yaml", config_with(water="jps")).species] == ["astar", "astar", "jps"]


def test_jps_under_another_diagonal_rule_is_a_notice_and_a_star_serves():
    config = load_config(ROOT / "config.yaml")
    config = replace(config, search=replace(config.search, diagonal="always"))
    sim = sim_on("lagoon.tmx", config)
    assert [sp.search for sp in sim.species] == ["astar", "astar", "astar"]
    assert "cows search with A*: JPS needs search.diagonal no-corner-cutting" in sim.notices
    assert not searches_with_jps(config, sim.map)


def test_loading_a_map_and_changing_the_config_switch_the_search():
    sim = sim_on("island.yaml")
    sim.load_map(load_map(ROOT / "maps" / "lagoon.tmx"))
    assert [sp.search for sp in sim.species] == ["jps", "jps", "jps"]
    said = sim.apply_config(config_with(water="astar"))
    assert "search of water creatures (A*)" in said
    assert [sp.search for sp in sim.species] == ["jps", "jps", "astar"]
    sim.step(0.1)
    assert [k.jumps for k in sim.planner.prepared()] == [True, True, False]
    sim.load_map(load_map(ROOT / "maps" / "island.yaml"))
    assert [sp.search for sp in sim.species] == ["astar", "astar", "astar"]


def test_a_run_with_jps_repeats_with_any_number_of_threads():
    sums = set()
    for threads in (1, 2, 1):
        config = load_config(ROOT / "config.yaml")
        config = replace(config, search=replace(config.search, threads=threads))
        sim = sim_on("lagoon.tmx", config, animals=600)
        for _ in range(30):
            sim.step(0.1)
        sums.add(sim.checksum())
    assert len(sums) == 1


def test_the_map_choice_is_read_and_written_by_every_format(tmp_path):
    src = tmp_path / "m.yaml"
    src.write_text(TINY + "search: {cow: jps, water: astar}\n")
    data = load_map(src)
    assert data.search == {"cow": "jps", "water": "astar"}
    for suffix in (".tmx", ".tmj"):
        convert_map(src, tmp_path / f"m{suffix}")
        assert load_map(tmp_path / f"m{suffix}").search == data.search
        convert_map(tmp_path / f"m{suffix}", tmp_path / f"back{suffix[1:]}.yaml")
        assert load_map(tmp_path / f"back{suffix[1:]}.yaml").search == data.search
    assert load_map(ROOT / "maps" / "lagoon.tmx").search == {"cow": "jps", "bird": "jps", "water": "jps"}


@pytest.mark.parametrize(
    ("tail", "message"),
    [
        ("search: {cow: dijkstra}\n", "m.yaml:7: search 'cow' must be one of astar, jps, got 'dijkstra'"),
        ("search: {cows: jps}\n", "m.yaml:7: unknown species 'cows' in 'search' (did you mean 'cow'?)"),
        ("search: jps\n", "m.yaml:7: 'search' must map species (cow, bird, water) to astar or jps"),
        ("search: {cow: 1}\n", "m.yaml:7: search 'cow' must be one of astar, jps, got 1"),
    ],
)
def test_a_bad_map_choice_is_one_line_naming_file_line_and_key(tmp_path, tail, message):
    src = tmp_path / "m.yaml"
    src.write_text(TINY + tail)
    raises_exactly(lambda: load_map(src), MapError, f"{tmp_path}/{message}")


def test_a_bad_tiled_choice_names_the_property(tmp_path):
    lagoon = (ROOT / "maps" / "lagoon.tmx").read_text()
    (tmp_path / "terrain.tsx").write_text((ROOT / "maps" / "terrain.tsx").read_text())
    (tmp_path / "terrain.png").write_bytes((ROOT / "maps" / "terrain.png").read_bytes())
    bad = tmp_path / "lagoon.tmx"
    bad.write_text(lagoon.replace('name="search.water" value="jps"', 'name="search.water" value="fast"'))
    line = next(i for i, text in enumerate(bad.read_text().splitlines(), 1) if "search.water" in text)
    message = f"{bad}:{line}: search 'water' must be one of astar, jps, got 'fast'"
    raises_exactly(lambda: load_map(bad), MapError, message)


def test_a_bad_config_choice_names_the_key():
    raises_exactly(
        lambda: parse_config({"species": {"cow": {"search": "fastest"}}}, "c.yaml"),
        ConfigError,
        "c.yaml: key 'species.cow.search': expected one of map, astar, jps, got 'fastest'",
    )


def test_the_first_start_compiles_the_round_the_start_map_needs():
    """A start map that chooses JPS: the background's round (``--jps``) and the rehearsal
    search with JPS; one that does not: neither (a first start stays ~7 s shorter)."""
    config = load_config(ROOT / "config.yaml")
    assert jps_args(True) == ["--jps"] and jps_args(False) == []
    with_jps, without = rehearsal(config, jps=True), rehearsal(config)
    assert {sp.search for sp in with_jps.species} == {"jps"}
    assert {sp.search for sp in without.species} == {"astar"}
    assert isinstance(without.map, MapData)


def test_a_map_that_chooses_jps_gets_its_round_compiled_when_it_loads(make_app, monkeypatch, tmp_path):
    """Behind the load's progress screen, not in the next frame (so does a config that switches
    a species to JPS); not while another process (a first start's background) compiles it: then
    those species search with A* meanwhile."""
    import sim.prepare as prepare

    compiled: list[bool] = []
    monkeypatch.setattr(prepare, "runs_without_compiling", lambda work: False)  # as on a cold cache
    monkeypatch.setattr(prepare, "compile_round", lambda config, tracing=False, jps=False: compiled.append(jps))
    app = make_app()
    assert app.files.load(app.maps_dir / "island.yaml") and compiled == []  # no species jumps there
    assert app.files.load(app.maps_dir / "lagoon.tmx") and compiled == [True]
    assert app.files.load(app.maps_dir / "island.yaml") and compiled == [True]
    # The config changes on disk (a copy: the live files follow it): cows switch to JPS on the island.
    config_file = tmp_path / "config.yaml"
    text = (ROOT / "config.yaml").read_text()
    config_file.write_text(text.replace("search: map   ", "search: jps   ", 1))
    app.live.config_path = config_file
    app.live._config_changed()
    assert app.sim.species[0].search == "jps" and compiled == [True, True]
    config_file.write_text(text)
    app.live._config_changed()
    assert app.sim.species[0].search == "astar" and compiled == [True, True]
    app.sim.planner.kernels = Ready(frozenset({"jps-round"}))  # a window's first start: the background is busy
    assert app.files.load(app.maps_dir / "lagoon.tmx") and compiled == [True, True]
    app.sim.step(0.1)
    assert not any(k.jumps for k in app.sim.planner.prepared())


def test_the_round_stage_compiles_the_round_the_start_map_needs(monkeypatch):
    import sim.prepare as prepare

    calls: list[tuple[bool, bool]] = []
    monkeypatch.setattr(prepare, "compile_round", lambda config, tracing=False, jps=False: calls.append((tracing, jps)))
    config = load_config(ROOT / "config.yaml")
    for jps in (True, False):
        prepare.STAGES["round"][0](config, jps)
    assert calls == [(False, True), (False, False)]  # with JPS or without, never the traced round


def test_the_background_compiles_the_round_with_jps_in_a_stage_of_its_own(monkeypatch):
    # For a map loaded later that chooses JPS: the jps-round stage compiles it (unless the start
    # map's round already searches with JPS); the jps stage compiles the engine's JPS only.
    import sim.prepare as prepare

    calls: list[tuple[str, bool]] = []
    monkeypatch.setattr(prepare, "compile_searches", lambda config, jps=False: calls.append(("searches", jps)))
    monkeypatch.setattr(prepare, "compile_round", lambda config, tracing=False, jps=False: calls.append(("round", jps)))
    monkeypatch.setattr(prepare, "warm_up", lambda kinds, fields=True: calls.append(("warm_up", "jps" in kinds)))
    config = load_config(ROOT / "config.yaml")
    prepare.STAGES["jps"][0](config, False)
    assert calls == [("warm_up", True)]
    calls.clear()
    prepare.STAGES["jps-round"][0](config, False)
    assert calls == [("searches", True), ("round", True)]
    calls.clear()
    prepare.STAGES["jps-round"][0](config, True)  # the start map's round has JPS already
    assert calls == []


def test_while_the_kernels_compile_the_interpreted_search_gets_the_same_costs():
    """A first start's window serves a species that chooses JPS with the interpreted search
    (plain A* in Python) until the round is compiled: same outcomes, same costs."""
    sim = sim_on("lagoon.tmx", animals=90)
    sim.step(0.1)
    a = sim.agents
    a.goal[:] = a.cell[np.random.default_rng(3).permutation(a.n)]
    rows = np.arange(a.n, dtype=np.int64)
    compiled = sim.planner.search_rows(rows, False)
    sim.planner.kernels = Ready(frozenset({"round"}))
    interpreted = sim.planner.search_rows(rows, False)
    found = compiled.outcome == int(Outcome.FOUND)
    assert (compiled.outcome == interpreted.outcome).all() and found.sum() > 30
    np.testing.assert_allclose(interpreted.cost[found], compiled.cost[found], rtol=1e-9)


def test_a_windows_first_start_serves_jps_species_with_a_star_until_the_background_is_done(make_app):
    """Startup: a window whose start map does not jump defers JPS (Planner.jps_ready) while the
    background compiles; once the background is done, species that choose JPS search with it."""
    from types import SimpleNamespace

    app = make_app("maps/lagoon.tmx")
    prep = SimpleNamespace(ready=False, done=False, args=[])
    app.startup.kernels.background, app.startup.headless, app.startup.kernels.jps = prep, False, False
    app.startup.begin(app.sim)  # a window: interpreted meanwhile, JPS deferred
    assert app.sim.planner.interpreted and not app.sim.planner.jps_ready
    prep.ready = True  # the round is cached, the rest (the "jps" stage) still compiling
    app.frame(1 / 60)
    assert not app.sim.planner.interpreted and not app.sim.planner.jps_ready
    assert not any(k.jumps for k in app.sim.planner.prepared())
    prep.done = True
    app.frame(1 / 60)
    assert app.sim.planner.jps_ready and all(k.jumps for k in app.sim.planner.prepared())
