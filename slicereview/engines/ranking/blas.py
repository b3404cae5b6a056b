"""One BLAS thread for the ranking engine's dense linear algebra (:func:`one_thread`).

The engine solves and inverts matrices of a few hundred rows (Newton steps of the
Bradley–Terry fit, the Laplace posterior, Crowd-BT's EM) thousands of times in a session or a
simulation. On a machine whose cores are busy, OpenBLAS's worker threads wait for a core on every
such call: measured on a shared 2-core machine, a simulated session of 100 images (1,000
answers) took 3.3–6.4 s with two BLAS threads and 0.27–0.47 s with one, and a Crowd-BT fit of
2,000 answers 9.7–30 s against 0.46 s. Matrices this small gain nothing from a second thread
even on an idle machine, so the engine asks for one while it computes
(``threadpoolctl``, [Threadpoolctl]); the limit is lifted when the call returns, so the rest of
the program keeps its own setting.

>>> @one_thread
... def double(x):
...     return 2 * x
>>> double(21)
42
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
_controller: Any = None


def one_thread(fn: F) -> F:
    """Run ``fn`` with BLAS limited to one thread (nested calls are cheap: ~50 µs)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        global _controller
        if _controller is None:
            from threadpoolctl import ThreadpoolController

            _controller = ThreadpoolController()
        with _controller.limit(limits=1, user_api="blas"):
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
