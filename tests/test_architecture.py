"""The code's shape: pygame only in sim/view/, small classes and functions, keys documented once."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

SIM = ROOT / "sim"
ENTRY_POINTS = {"sim.cli", "sim.__main__"}  # may import pygame (they start the window)
MAX_CLASS, MAX_FUNCTION = 250, 60
EXEMPT = {"kernel.py", "reference.py"}  # numba kernels and the pure-Python reference search


def module_name(path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def model_modules() -> list[str]:
    """Every module of the package outside sim/view/, found by walking the tree."""
    out = []
    for path in sorted(SIM.rglob("*.py")):
        if (SIM / "view") in path.parents:
            continue
        name = module_name(path)
        if name not in ENTRY_POINTS:
            out.append(name)
    return out


def test_the_walk_finds_the_model_modules():
    found = model_modules()
    for name in ("sim.simulation", "sim.instruments.inspector", "sim.instruments.compare", "sim.instruments.fields",
                 "sim.pathfinding.kernel"):  # fmt: skip
        assert name in found
    assert not any(n.startswith("sim.view") for n in found)


def test_no_module_outside_sim_view_imports_pygame():
    # One fresh interpreter imports them one by one and names the first that pulls pygame in.
    code = (
        "import importlib, sys\n"
        f"for name in {model_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        "    if any(m.split('.')[0] == 'pygame' for m in sys.modules):\n"
        "        sys.exit('pygame imported by ' + name)\n"
        "print('ok')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


def test_only_sim_view_and_the_entry_points_name_pygame():
    for path in SIM.rglob("*.py"):
        if (SIM / "view") in path.parents or module_name(path) in ENTRY_POINTS:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not any(n.split(".")[0] == "pygame" for n in names), f"{path}:{node.lineno} imports pygame"


def oversized() -> list[str]:
    found = []
    for path in sorted(SIM.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            size = (getattr(node, "end_lineno", 0) or 0) - getattr(node, "lineno", 0) + 1
            if isinstance(node, ast.ClassDef) and size > MAX_CLASS:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} class {node.name}: {size} lines")
            is_function = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            if is_function and size > MAX_FUNCTION and path.name not in EXEMPT:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}(): {size} lines")
    return found


def test_no_class_over_250_lines_and_no_function_over_60():
    assert oversized() == []


def test_the_size_check_can_fail(tmp_path, monkeypatch):
    # The check above proves something only if it catches a long function.
    fake = tmp_path / "sim"
    fake.mkdir()
    (fake / "long.py").write_text("def f():\n" + "    x = 1\n" * 70)
    monkeypatch.setattr(sys.modules[__name__], "SIM", fake)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert oversized() == ["sim/long.py:1 f(): 71 lines"]


def test_the_docs_key_tables_are_the_modes_own():
    """docs/demo.md's key tables are made from the modes' tables (``python -m sim.view.keydocs
    --write docs/demo.md``): this fails when a mode's keys change and the docs do not."""
    from sim.view.keydocs import all_tables
    from sim.view.keys import BEGIN, END, markdown

    text = (ROOT / "docs" / "demo.md").read_text()
    block = text.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert block == markdown(all_tables()).strip(), "run: python -m sim.view.keydocs --write docs/demo.md"


def test_the_modes_listed_are_every_mode_the_package_defines():
    import inspect

    import sim.view.modes as modes_package
    from sim.view.modes import MODES, Mode

    defined = set()
    for info in pkgutil.iter_modules(modes_package.__path__, "sim.view.modes."):
        module = importlib.import_module(info.name)
        defined |= {c for _, c in inspect.getmembers(module, inspect.isclass)
                    if issubclass(c, Mode) and c is not Mode and c.__module__ == module.__name__}  # fmt: skip
    assert defined == set(MODES)


def mode_context_overreach() -> list[str]:
    """Every ``self.app.X`` / ``app.X`` / ``play.app.X`` in sim/view/modes/ whose X is not a
    member of the context its class names (``context = ...``; a mode's by default; functions
    outside a class: the module's own ``context = ...``, else the play mode's in play.py)."""
    from sim.view import context

    bad = []
    for path in sorted((SIM / "view" / "modes").glob("*.py")):
        tree = ast.parse(path.read_text())
        default = context.PlayContext if path.name == "play.py" else context.ModeContext
        for stmt in tree.body:  # a module of a mode's parts names the context they get
            if isinstance(stmt, ast.Assign) and [getattr(t, "id", "") for t in stmt.targets] == ["context"]:
                default = getattr(context, stmt.value.id)
        for top in tree.body:
            ctx = default if not isinstance(top, ast.ClassDef) else context.ModeContext
            if isinstance(top, ast.ClassDef):
                for stmt in top.body:
                    if isinstance(stmt, ast.Assign) and [getattr(t, "id", "") for t in stmt.targets] == ["context"]:
                        ctx = getattr(context, stmt.value.id)
            for node in ast.walk(top):
                if not isinstance(node, ast.Attribute):
                    continue
                owner = node.value
                through_app = (isinstance(owner, ast.Attribute) and owner.attr == "app") or (
                    isinstance(owner, ast.Name) and owner.id == "app")  # fmt: skip
                in_init_param = isinstance(owner, ast.Name) and _is_init_param(top, node)
                if through_app and not in_init_param and node.attr not in ctx.members():
                    bad.append(f"{path.name}:{node.lineno} app.{node.attr} (not in {ctx.__name__})")
    return bad


def _is_init_param(top: ast.AST, node: ast.AST) -> bool:
    """Whether ``node`` sits in an ``__init__`` that takes ``app`` (the whole app, handed on)."""
    inits = [fn for fn in ast.walk(top) if isinstance(fn, ast.FunctionDef) and fn.name == "__init__"
             and any(a.arg == "app" for a in fn.args.args)]  # fmt: skip
    return any(n is node for fn in inits for n in ast.walk(fn))


def test_a_mode_touches_only_what_its_context_hands_on():
    """Modes see the app through a narrow context (sim.view.context): the model, the camera,
    drawing, messages, files, push and pop; a mode that needs more names a wider one."""
    assert mode_context_overreach() == []


def test_a_mode_context_refuses_what_it_does_not_hand_on(make_app):
    from sim.view.context import ModeContext, PlayContext

    app = make_app("maps/tutorial.yaml")
    ctx = ModeContext(app)
    assert ctx.sim is app.sim and ctx.cam is app.cam
    with pytest.raises(AttributeError):
        ctx.config  # noqa: B018 - the app has it; a mode's context does not
    with pytest.raises(AttributeError):
        ctx.user_paused = True
    play = PlayContext(ctx)  # a wider context over the same app
    play.user_paused = True
    assert app.user_paused and app.top.app.sim is app.sim
    assert type(app.top.app) is PlayContext and not hasattr(app.top.painting.app, "instruments")


def test_no_key_is_bound_twice_in_one_table():
    from sim.view.keydocs import all_tables

    for table in all_tables():
        seen: dict[tuple[int, int], str] = {}
        for b in table.bindings:
            for code in b.codes:
                assert (code, b.mods) not in seen, f"{table.title}: {b.keys!r} and {seen[(code, b.mods)]!r}"
                seen[(code, b.mods)] = b.keys


def test_the_help_overlay_shows_every_modes_keys(make_app):
    app = make_app("maps/tutorial.yaml")
    titles = [t.title for t in app.tables()]
    assert titles[:2] == ["Everywhere", "Play"] and {"Compare (C)", "Map picker (M)"} <= set(titles)


def test_engine_doctests_run_and_pass():
    import sim.pathfinding

    attempted = 0
    for info in pkgutil.walk_packages(sim.pathfinding.__path__, "sim.pathfinding."):
        result = doctest.testmod(importlib.import_module(info.name))
        assert result.failed == 0, info.name
        attempted += result.attempted
    result = doctest.testmod(sim.pathfinding)
    assert result.failed == 0
    assert attempted + result.attempted >= 3  # the package's example really ran


def readme_scripting_example() -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Scripting the model\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert blocks, "no python example under 'Scripting the model'"
    return blocks[0]


def test_the_readme_scripting_example_runs_without_pygame(tmp_path):
    code = readme_scripting_example() + (
        "\nimport sys\nassert not any(m.split('.')[0] == 'pygame' for m in sys.modules), 'pygame was imported'\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip(), "the example prints what it found"


@pytest.mark.parametrize("name", ["Simulation", "species_counts"])
def test_documented_names_stay_where_they_are(name):
    import sim.simulation

    assert hasattr(sim.simulation, name)
    from sim.config import load_config  # noqa: F401
    from sim.maps import load_map, resolve_map  # noqa: F401


# ------------------------------------------------------------------ layers
#: What each part of sim/ may import of the others, lowest first (its own folder always). Read from
#: the syntax tree, so imports inside functions and under TYPE_CHECKING count too.
BELOW = {
    "sim.support": set(),
    "sim.pathfinding": set(),  # the engine: nothing else of sim
    "sim.world": {"sim.support"},
    "sim.config": {"sim.support", "sim.pathfinding", "sim.world"},
    "sim.maps": {"sim.support", "sim.world"},
    "sim.model": {"sim.support", "sim.pathfinding", "sim.world", "sim.config"},
    "sim.reconfigure": {"sim.support", "sim.pathfinding", "sim.world", "sim.config", "sim.model"},
    "sim.species": {"sim.model"},  # re-exports kept for scripts
    "sim.observe": {"sim.model"},
}
BELOW["sim.simulation"] = BELOW["sim.model"] | {"sim.model", "sim.maps", "sim.reconfigure"}
BELOW["sim.instruments"] = BELOW["sim.simulation"] | {"sim.simulation"}
BELOW["sim.prepare"] = BELOW["sim.simulation"] | {"sim.simulation"}
BELOW["sim.view"] = BELOW["sim.instruments"] | {"sim.instruments", "sim.prepare"}
TOP = {"sim", "sim.cli", "sim.__main__"}  # entry points: anything


def _modules() -> dict[str, Path]:
    out = {}
    for path in SIM.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("sim"):
            found |= {f"{node.module}.{a.name}" for a in node.names} | {node.module}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("sim")}
    return found


def _part(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def test_every_part_imports_only_what_lies_below_it():
    wrong = []
    for module, path in _modules().items():
        part = _part(module)
        if part in TOP:
            continue
        assert part in BELOW, f"{module}: a new part of sim/; give it a row in BELOW"
        for name in _imports(path):
            target = _part(name)
            if target != part and target not in BELOW[part] and target != "sim":
                wrong.append(f"{module} imports {name}")
    assert wrong == []


def test_no_import_circles_between_modules():
    modules = _modules()

    def owner(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    edges = {m: set() for m in modules}
    for module, path in modules.items():
        for name in _imports(path):
            target = owner(name)
            if target and target not in (module, "sim") and not target.startswith(module + "."):
                edges[module].add(target)
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in sorted(edges[m]):
            if state.get(t) == 1:
                raise AssertionError("import circle: " + " -> ".join([*stack[stack.index(t) :], t]))
            if t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(modules):
        if m not in state:
            visit(m)


#: Parts that use the engine through its front door only (``from sim.pathfinding import ...``): the
#: engine's modules behind it are its own to rearrange.
FRONT_DOOR_ONLY = ("sim.model", "sim.simulation", "sim.instruments", "sim.config", "sim.reconfigure", "sim.view",
                   "sim.prepare", "sim.maps", "sim.world")  # fmt: skip


def test_the_model_and_everything_above_it_use_only_the_engines_front_door():
    wrong = []
    for module, path in _modules().items():
        if not module.startswith(FRONT_DOOR_ONLY):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sim.pathfinding."):
                wrong.append(f"{module}:{node.lineno} imports {node.module}")
            elif isinstance(node, ast.Import):
                wrong += [f"{module}:{node.lineno} imports {a.name}" for a in node.names
                          if a.name.startswith("sim.pathfinding.")]  # fmt: skip
    assert wrong == []


MAX_ARGUMENTS = 12


def wide_calls(paths: list[Path]) -> list[str]:
    """Calls (and definitions) with more than MAX_ARGUMENTS arguments in ``paths``."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                n = len(node.args) + len(node.keywords)
                what = ast.unparse(node.func)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                a = node.args
                n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                what = f"def {node.name}"
            else:
                continue
            if n > MAX_ARGUMENTS:
                found.append(f"{path.name}:{node.lineno} {what}: {n} arguments")
    return found


def test_no_call_in_the_model_takes_more_than_12_arguments():
    """Arrays cross into compiled code as records (the agents' columns, a workspace's buffers,
    a round's answers), not one by one."""
    paths = [*sorted((SIM / "model").rglob("*.py")), SIM / "simulation.py",
             *sorted((SIM / "instruments").rglob("*.py"))]  # fmt: skip
    assert wide_calls(paths) == []


def test_the_width_check_can_fail(tmp_path):
    wide = tmp_path / "wide.py"
    many = ", ".join(f"a{i}" for i in range(13))
    wide.write_text(f"f({many})\ndef g({many}): pass\n")
    assert sorted(wide_calls([wide])) == ["wide.py:1 f: 13 arguments", "wide.py:2 def g: 13 arguments"]


# ------------------------------------------------------------------ one owner per species fact
def test_config_yaml_and_the_docs_say_what_the_species_table_says():
    import yaml

    from sim.world.fauna import FAUNA, cost_table
    from sim.world.terrain import Terrain

    shipped = yaml.safe_load((ROOT / "config.yaml").read_text())["species"]
    assert set(shipped) <= set(FAUNA)
    assert all(FAUNA[key].count == 0 for key in FAUNA if key not in shipped)  # an unlisted species is opt-in
    for key, facts in FAUNA.items():
        if key not in shipped:
            continue
        row = shipped[key]
        assert (row["count"], row["speed"], row["wander_radius"], tuple(row["idle_s"]), tuple(row["colour"])) == (
            facts.count,
            facts.speed,
            facts.wander_radius,
            facts.idle_s,
            facts.colour,
        ), key
        assert row["costs"] == {t.label: facts.costs.get(t, 0) for t in Terrain}, key
    docs = (ROOT / "docs" / "engine.md").read_text()
    assert cost_table() in docs


def test_the_model_and_the_config_take_every_species_fact_from_the_table():
    from sim.config import parse_config
    from sim.model.species import SPECIES
    from sim.world.fauna import FAUNA

    assert list(SPECIES) == list(FAUNA)
    defaults = parse_config({}).species
    for key, kind in SPECIES.items():
        f = FAUNA[key]
        assert (kind.label, kind.default_speed, kind.default_colour, kind.layer, kind.straight_paths) == (
            f.label,
            f.speed,
            f.colour,
            f.layer,
            f.straight_paths,
        )
        assert dict(kind.astar_class.terrain_costs) == dict(f.costs)
        assert (defaults[key].count, defaults[key].speed, defaults[key].wander_radius) == (
            f.count,
            f.speed,
            f.wander_radius,
        )


# ------------------------------------------------------------------ the tests' own shape
LAYERS = ("engine", "model", "maps", "view", "cli")


def test_tests_mirror_the_layers_and_no_test_module_imports_another():
    tests = ROOT / "tests"
    loose = sorted(p.name for p in tests.glob("test_*.py"))
    assert loose == [
        "test_architecture.py",
        "test_docs_examples.py",
        "test_kernel_cache.py",
        "test_types.py",
    ]  # the whole package's
    assert all((tests / layer / "__init__.py").is_file() for layer in LAYERS)
    wrong = []
    for path in tests.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            wrong += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.rpartition(".")[2].startswith("test_")]
    assert wrong == []


def test_model_tests_use_the_planners_public_names():
    found = []
    for path in (ROOT / "tests").rglob("test_*.py"):
        found += [f"{path.name}:{i}" for i, line in enumerate(path.read_text().splitlines(), 1)
                  if re.search(r"planner_?\._[a-z]", line)]  # fmt: skip
    assert found == []
