"""astar-island: animals finding their way across an island with A*.

Data flow: config -> world (terrain grid) -> cost grids (one per species) ->
search kernel -> agents -> render/input/app. Only the last layer imports pygame.
"""

from sim.support.kernel_cache import refresh as _refresh_kernel_cache

_refresh_kernel_cache()  # before any compiled kernel is loaded (see sim.support.kernel_cache)
