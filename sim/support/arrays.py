"""Small numpy helpers the model's instruments and the view share."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def nonzero_yx(mask: NDArray) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The rows and columns of ``mask``'s set cells (a 2-D array, ``[y, x]``), in row-major order, as
    ``np.nonzero`` gives them: found in the flat array and split by a division, ~14x faster than a 2-D
    ``np.nonzero`` on a sparse mask (7 ms a frame for the learn view's open list on 2048x2048)."""
    return np.divmod(np.flatnonzero(mask), mask.shape[1])
