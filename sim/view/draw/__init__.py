"""Drawing, with pygame: the terrain and the animals, panels and legends, the search views."""
