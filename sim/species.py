"""Kept for scripts written against the earlier layout: the species live in :mod:`sim.model.species`."""

from .model.species import SPECIES, BirdAStar, CowAStar, SpeciesKind, SpeciesRuntime, WaterCreatureAStar

__all__ = ["SPECIES", "BirdAStar", "CowAStar", "SpeciesKind", "SpeciesRuntime", "WaterCreatureAStar"]
