"""Kept for scripts written against the earlier layout: see :mod:`sim.model.observe`."""

from .model.observe import SearchBatch, SearchEvent, SearchObserver

__all__ = ["SearchBatch", "SearchEvent", "SearchObserver"]
