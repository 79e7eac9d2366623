"""astar-island: animals finding their way across an island with A*.

Data flow: config -> world (terrain grid) -> cost grids (one per species) ->
search kernel -> agents -> render/input/app. Only the last layer imports pygame.
"""
