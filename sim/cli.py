"""Command line: ``python main.py [--config PATH] [--map NAME|PATH] [--headless ...]``, and
``python main.py convert SRC DST`` (maps between YAML, Tiled and Moving AI formats).

A bad config or map file, or a bad option, ends the program with one line on stderr
naming the file, the line or key and what is wrong, and exit status 2: never a traceback.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from dataclasses import replace
from pathlib import Path

# (The standard library only, as everything here at the top: a missing dependency is then reported by run().)
from sim.support.checks import MAX_ANIMALS, MAX_SEED, OneLineParser
from sim.support.resources import default_config_path, maps_dir

HEADLESS_FRAMES = 600  # what a headless run runs without --frames


class UsageError(ValueError):
    """A command-line option that cannot work (checked before anything runs)."""


def program() -> str:
    """The program's name as it was started, for its usage and error lines: ``main.py``, the
    installed ``astar-island``, or ``python -m sim`` (never a name the user has no file for)."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    if name == "__main__.py":
        return "python -m sim"
    return name if name in ("main.py", "astar-island") else "astar-island"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    prog = program()
    ap = OneLineParser(
        prog=prog,
        description="Animals finding their way across an island with A*.",
        epilog=f"Convert maps: {prog} convert SRC DST (see {prog} convert --help).",
    )
    ap.add_argument("--config", type=Path, default=None, help="settings file (default: the bundled config.yaml)")
    from sim.maps.formats import describe  # the format registry names them

    ap.add_argument("--map", help=f"map name in maps/, or a map file: {describe()}")
    ap.add_argument("--headless", action="store_true", help="run without a window and print figures")
    ap.add_argument("--frames", type=int, help=f"headless: frames to run (default {HEADLESS_FRAMES})")
    ap.add_argument("--agents", type=int, help="number of animals, split in the config's ratio")
    ap.add_argument("--seed", type=int, help="seed (overrides the config)")
    ap.add_argument("--json", type=Path, help="headless: also write the figures as JSON here")
    ap.add_argument("--screenshot", type=Path, help="headless: save the last frame as PNG here")
    args = ap.parse_args(argv)
    for name, lo in (("frames", 1), ("agents", 0), ("seed", 0)):
        value = getattr(args, name)
        if value is not None and value < lo:
            ap.error(f"--{name} must be >= {lo}, got {value}")
    if args.agents is not None and args.agents > MAX_ANIMALS:
        ap.error(f"--agents must be at most {MAX_ANIMALS}, got {args.agents}")
    if args.seed is not None and args.seed > MAX_SEED:  # (named as typed, not as the config's key)
        ap.error(f"--seed must be at most {MAX_SEED}, got {args.seed}")
    for name in ("frames", "json", "screenshot"):  # (a window would run on and never write them: say so)
        if getattr(args, name) is not None and not args.headless:
            ap.error(f"--{name} is for headless runs: add --headless")
    args.frames = HEADLESS_FRAMES if args.frames is None else args.frames
    return args


def check_output(option: str, path: Path | None) -> None:
    """An output file must be writable where it is asked for: checked before the run, not after."""
    if path is not None:
        from sim.support.files import check_writable

        check_writable(path, UsageError, f"{option} {path}")


def convert_main(argv: list[str]) -> int:
    """``convert SRC DST [--force] [--config PATH]``: one line on success, one line and status 2 on error."""
    from sim.maps.formats import describe  # the format registry names them

    ap = OneLineParser(
        prog=f"{program()} convert",
        description=f"Convert a map between these formats (the endings pick them): {describe()}.",
    )
    ap.add_argument("src", type=Path, help="the map to read")
    ap.add_argument("dst", type=Path, help="the file to write; its ending picks the format")
    ap.add_argument("--force", action="store_true", help="replace DST if it exists")
    ap.add_argument("--config", type=Path, default=None, help="settings whose colours the Tiled tileset shows")
    args = ap.parse_args(argv)
    from sim.config import ConfigError, load_config
    from sim.maps import MapError, format_of
    from sim.maps.convert import convert

    try:
        config_path = args.config or default_config_path()
        config = load_config(config_path)
        written = convert(
            args.src,
            args.dst,
            colours=config.terrain_colours(),
            force=args.force,
            max_size=(config.max_map_width, config.max_map_height),
        )
    except (ConfigError, MapError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {args.dst}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print("wrote " + " and ".join(str(p) for p in written))
    fmt = format_of(args.dst)
    if fmt is not None and fmt.loses:
        print(f"note: {fmt.loses}")
    return 0


#: What the program needs installed (import names): without one, one line says how to set up.
NEEDS = ("numpy", "numba", "llvmlite", "pygame", "yaml")


def _interrupted(_signum: int, _frame: object) -> None:
    """Ctrl+C: one line, the compiling children ended, exit 130, at once. Not a KeyboardInterrupt:
    raised inside numba's compiler (a C callback), that prints a traceback and goes on."""
    print("astar-island: interrupted", file=sys.stderr, flush=True)
    prepare = sys.modules.get("sim.prepare")
    if prepare is not None:
        prepare.stop_all()
    os._exit(130)


def run(argv: list[str] | None = None) -> int:
    """:func:`main`, or one line on how to set up when a dependency is missing (say, ``python3
    main.py`` outside the project's ``.venv``) instead of a ``ModuleNotFoundError`` traceback."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupted)
    try:
        return main(argv)
    except KeyboardInterrupt:  # ctrl+C, also while a first start compiles: a line, not a traceback
        print("astar-island: interrupted", file=sys.stderr)
        return 130
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in NEEDS:
            raise
        print(f"error: the Python package '{exc.name}' is not installed for {sys.executable}; "
              "run `make run` (sets up .venv with everything) or `pip install .`", file=sys.stderr)  # fmt: skip
        return 2


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["convert"]:
        return convert_main(argv[1:])
    args = parse_args(argv)
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")  # no sound: never wait for an audio device
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    # The window's pixels go to the screen as they are: SDL would otherwise make an OpenGL
    # context just to copy them, which loads a GL driver (Mesa's software one loads LLVM):
    # ~100 MB more resident memory, for no visible gain in a 2-D demo.
    os.environ.setdefault("SDL_FRAMEBUFFER_ACCELERATION", "0")
    if args.headless:
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from sim.config import ConfigError, load_config
    from sim.maps import MapError, load_map, resolve_map

    try:
        check_output("--json", args.json)
        check_output("--screenshot", args.screenshot)
        config_path = args.config or default_config_path()
        config = load_config(config_path)
        if args.seed is not None:
            config = replace(config, seed=args.seed)
        path = resolve_map(args.map or config.map, maps_dir())
        map_data = load_map(path, max_size=(config.max_map_width, config.max_map_height))
        from sim.simulation import species_counts
        from sim.view.app import App

        counts = species_counts(config, args.agents) if args.agents is not None else None
        app = App(
            config,
            map_data,
            maps_dir=maps_dir(),
            counts=counts,
            clock="model" if args.headless else "wall",
            headless=args.headless,
            screenshot_dir=Path("screenshots"),
            config_path=Path(config_path),
        )
    except (ConfigError, MapError, UsageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    _say_start(app)
    try:
        if args.headless:
            return _headless(app, args)
        app.run()
    except KeyboardInterrupt:
        print("astar-island: interrupted", file=sys.stderr)
        return 130
    return 0


def _headless(app, args: argparse.Namespace) -> int:
    """A headless run: its figures on stdout, then ``--json`` and ``--screenshot`` written; exit status."""
    from sim.view import headless

    result = headless.run(app, args.frames)
    for line in headless.summary_lines(result):
        print(line)
    for option, path, write in (
        ("--json", args.json, lambda p: headless.write_json(result, p)),
        ("--screenshot", args.screenshot, lambda p: headless.save_screenshot(app, p)),
    ):
        if path is None:
            continue
        try:  # (checked before the run; the write itself can still fail: /proc, a full disk)
            write(path)
        except OSError as exc:
            print(f"error: {option} {path}: cannot write: {exc.strerror or exc}", file=sys.stderr)
            return 2
    return 0


def _say_start(app) -> None:
    """The one line every start prints: the map, the animals, where the user's folder is."""
    from sim.support.resources import user_dir
    from sim.view.messages import say

    w, h = app.sim.world.width, app.sim.world.height
    say(f"{app.sim.world.name} ({w}x{h}), {app.sim.agents.n} animals; your maps and settings: {user_dir()}")
