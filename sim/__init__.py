"""astar-island: animals finding their way across an island with A*.

Data flow: config -> world (terrain grid) -> cost grids (one per species) ->
search kernel -> agents -> render/input/app. Only the last layer imports pygame.
"""

from sim.support.lifeline import watch_parent as _watch_parent

_watch_parent()  # a helper process of the demo ends with it, even while it still imports

from sim.support.kernel_cache import refresh as _refresh_kernel_cache  # noqa: E402

_refresh_kernel_cache()  # before any compiled kernel is loaded (see sim.support.kernel_cache)
