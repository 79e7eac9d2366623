"""The world: the terrain table, cell rectangles, the terrain grid with its change log, undo.

Below the model and the maps; it imports nothing of them (only the engine may be used).
"""
