"""The model, pygame-free: species, the animals (struct of arrays), requests and the planner,
the per-frame budget, herds, re-planning after painting, regions, statistics.

The front door is :mod:`sim.simulation` (``Simulation``); these are its parts.
"""
