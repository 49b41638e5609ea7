"""Where Primo's parallel work runs: joblib locally, or an existing Dask or Ray cluster.

Everything Primo runs in parallel — search trials (with their cross-validation folds),
VIPER rollouts, and the adapters' simulator sweeps through :func:`map_jobs` — is a
``joblib.Parallel`` call. joblib hands those calls to whichever backend is active, so one
``with`` block moves them onto a cluster; Primo has no scheduler of its own.

* ``parallel_backend("loky", n_jobs=2)``: processes on this machine (joblib's default backend).
* ``parallel_backend("dask", address="tcp://scheduler:8786")``: a Dask distributed cluster
  (``pip install primo-systems[dask]``); ``address="local"`` starts a ``LocalCluster`` here,
  ``address=None`` uses the current default ``distributed.Client``.
* ``parallel_backend("ray", address="auto")``: Ray through joblib's Ray backend
  (``pip install primo-systems[ray]``); ``address=None`` starts Ray locally if it is not running.

Inside the block, a Primo call whose ``n_jobs`` is ``None`` uses every worker of the backend.
An explicit ``n_jobs=k`` still means *k trials/tasks at a time*: Bayesian search asks for ``k``
points per batch wherever they run, so a search gives the same trials locally and on a cluster
for the same seed and batch size (see :func:`effective_n_jobs`).

What runs where, and what stays the same:

* Bayesian search asks scikit-optimize for a batch of points at a time with the constant-liar
  strategy (``ask(n_points=batch, strategy="cl_min")``), so parallel workers get distinct points;
  its trials depend only on the seed and the batch size, never on the backend.
* PrAM's EBM runs its bags with joblib too: a PrAM fit inside a ``dask`` block (e.g. a search's
  final refit) sends its bags to the cluster, with the same result. Search trials that run in
  other workers fit with ``n_jobs=1`` (the searches set it), so that trials, not bags, fill the
  workers; what a search fits in this process (its refit, the estimator's own trial) keeps the
  estimator's ``n_jobs``.
* Data: on Dask, joblib scatters arguments larger than 1 kB to the workers once per parallel
  call (a search makes one per batch); ``parallel_backend("dask", ..., scatter=[X, y])``
  broadcasts them once for the whole block instead. For big tables, search on a sample
  (``search_sample_size=`` of the searches) and let only the final fit see every row.
* Adapters (simulator sweeps, one LinnOS model per device) call :func:`map_jobs` and inherit
  whatever backend their caller chose: ``map_jobs(partial(simulate, trace=trace), policies)``.

From the command line: ``primo fit data.csv --target y --model pram --cluster tcp://host:8786``
(``--cluster local`` starts a local Dask cluster, ``--backend ray`` uses Ray, ``--search-sample``
searches on a sample).

Example
-------
>>> import primo
>>> from primo.search import BayesianSearch
>>> with primo.parallel_backend("dask", address="tcp://10.0.0.5:8786") as backend:  # doctest: +SKIP
...     search = BayesianSearch(primo.PrDTRegressor(), n_trials=64).fit(X, y)   # doctest: +SKIP
"""
from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

import joblib
from joblib.parallel import get_active_backend
from tqdm.auto import tqdm

logger = logging.getLogger(__name__)

CLUSTER_BACKENDS = ("dask", "ray")
"""Backends that run on a cluster (and take an ``address``); every other name is a local joblib backend."""


@dataclass(frozen=True)
class ActiveBackend:
    """What :func:`parallel_backend` set up: the joblib backend name, how many tasks a Primo call
    with ``n_jobs=None`` runs at a time (e.g. a search's batch size) and, for Dask, the
    ``distributed.Client`` (e.g. for its dashboard link)."""

    name: str
    n_workers: int
    client: Any = None


@contextlib.contextmanager
def parallel_backend(backend: str = "loky", *, address=None, n_jobs: int = -1,
                     **backend_params) -> Iterator[ActiveBackend]:
    """Run Primo's parallel work on a joblib backend, a Dask cluster or a Ray cluster.

    Parameters
    ----------
    backend : str, default "loky"
        ``"dask"``, ``"ray"`` or any joblib backend name (``"loky"``, ``"threading"``,
        ``"multiprocessing"``, ``"sequential"``).
    address : str or distributed.Client, optional
        Dask: a scheduler address (``"tcp://host:8786"``), ``"local"`` to start a
        ``LocalCluster`` of ``n_jobs`` single-threaded worker processes on this machine, a
        ``Client``, or None for the current default client. Ray: passed to ``ray.init``
        (``"auto"``, ``"ray://host:10001"``); ``"local"`` or None starts Ray on this machine when
        it is not running. Not allowed for local backends.
    n_jobs : int, default -1
        Workers used by Primo calls whose own ``n_jobs`` is None (-1: all of the backend's). On
        Ray it sizes the actor pool. On Dask the scheduler decides how many tasks run at once
        (joblib's Dask backend ignores ``n_jobs``): there it sizes ``address="local"`` clusters
        and, through :func:`effective_n_jobs`, the batches of Bayesian search.
    **backend_params
        Passed to ``joblib.parallel_config`` (e.g. ``scatter=[X]`` or
        ``wait_for_workers_timeout=60`` for Dask).

    Yields
    ------
    ActiveBackend
        The backend name, its number of workers and, for Dask, the client.

    Example
    -------
    >>> with parallel_backend("threading", n_jobs=2) as active:
    ...     active.n_workers, map_jobs(abs, [-1, -2, 3])
    (2, [1, 2, 3])
    """
    if n_jobs is None or int(n_jobs) == 0:
        raise ValueError(f"n_jobs must be a positive worker count or negative (-1: all workers), got {n_jobs!r}")
    n_jobs = int(n_jobs)
    with contextlib.ExitStack() as stack:
        if backend == "dask":
            client = stack.enter_context(_dask_client(address, n_jobs))
            backend_params.setdefault("client", client)
        elif backend == "ray":
            client = None
            stack.enter_context(_ray_session(address, n_jobs))
        else:
            if address is not None:
                raise ValueError(f"address is only for the cluster backends {CLUSTER_BACKENDS}, "
                                 f"not for the local backend {backend!r}")
            client = None
        try:
            stack.enter_context(joblib.parallel_config(backend=backend, n_jobs=n_jobs, **backend_params))
        except (KeyError, ValueError) as exc:
            raise ValueError(f"unknown parallel backend {backend!r} (dask, ray, loky, threading, "
                             f"multiprocessing, sequential): {exc}") from exc
        active = ActiveBackend(backend, effective_n_jobs(None), client)
        logger.info("parallel backend %s with %d workers", backend, active.n_workers)
        yield active


def effective_n_jobs(n_jobs: int | None = None) -> int:
    """How many tasks a Primo call with this ``n_jobs`` runs at a time under the active backend.

    A positive ``n_jobs`` is taken as asked, on any backend (joblib's Dask backend would report
    the cluster's size instead): that keeps a search's batches — hence its trials — the same
    locally and on a cluster. ``None`` means the ``n_jobs`` of the enclosing
    :func:`parallel_backend` (1 outside one), and a negative value all of the backend's workers
    (-1: every core, or every worker thread of the cluster).

    Example
    -------
    >>> effective_n_jobs(3), effective_n_jobs(None)
    (3, 1)
    """
    if n_jobs is not None and int(n_jobs) >= 1:
        return int(n_jobs)
    if n_jobs is not None and int(n_jobs) == 0:
        raise ValueError("n_jobs == 0 has no meaning; use None, a positive count or -1")
    if n_jobs is None:
        _, configured = get_active_backend()
        if configured is not None and int(configured) >= 1:  # parallel_backend(..., n_jobs=k)
            return int(configured)
    return max(1, int(joblib.effective_n_jobs(n_jobs)))


def map_jobs(func: Callable, items: Iterable, *, n_jobs: int | None = None, progress: bool = False,
             desc: str | None = None) -> list:
    """``[func(item) for item in items]`` in parallel on the active backend, in the order of ``items``.

    This is the helper for independent, coarse tasks such as simulator sweeps (one policy ×
    trace × seed per item) or one model per device. Pass fixed arguments with
    ``functools.partial``; ``func`` and the items must be picklable (joblib uses cloudpickle, so
    lambdas and closures are fine). On Dask, arguments larger than 1 kB are scattered to the
    workers once per call rather than sent with every task.

    Parameters
    ----------
    func : callable
        Called as ``func(item)``.
    items : iterable
    n_jobs : int, optional
        Parallel workers; None uses the backend of the enclosing :func:`parallel_backend`
        (sequential outside one).
    progress : bool
        Show a tqdm progress bar.
    desc : str, optional
        Progress bar label.

    Example
    -------
    >>> from functools import partial
    >>> map_jobs(partial(pow, 2), [1, 2, 3], n_jobs=2)
    [2, 4, 8]

    An adapter's sweep, run on whatever backend the caller chose:

    >>> with parallel_backend("dask", address="local", n_jobs=2):  # doctest: +SKIP
    ...     rows = map_jobs(partial(simulate, trace=trace), policies, progress=True)
    """
    items = list(items)
    if not items:
        return []
    results = joblib.Parallel(n_jobs=n_jobs, return_as="generator")(joblib.delayed(func)(item) for item in items)
    return list(tqdm(results, total=len(items), desc=desc, disable=not progress))


@contextlib.contextmanager
def _dask_client(address, n_jobs: int):
    """The Dask client to run on; clusters and clients created here are closed on exit."""
    try:
        import distributed
    except ImportError as exc:
        raise ImportError("the dask backend needs dask.distributed: pip install 'primo-systems[dask]'") from exc
    if isinstance(address, distributed.Client):
        yield address
    elif address is None:
        try:
            yield distributed.get_client()
        except ValueError as exc:
            raise ValueError("no Dask client is running: pass address='tcp://scheduler:8786', "
                             "address='local', or create a distributed.Client first") from exc
    elif address == "local":
        n_workers = n_jobs if n_jobs > 0 else joblib.cpu_count()
        # One thread per worker process: trials are CPU-bound Python/numpy code that holds the GIL.
        with distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, distributed.Client(cluster) as client:
            yield client
    elif isinstance(address, str):
        with distributed.Client(address, set_as_default=False) as client:
            yield client
    else:
        raise TypeError(f"address must be a scheduler address, 'local', a distributed.Client or None, "
                        f"got {type(address).__name__}")


@contextlib.contextmanager
def _ray_session(address, n_jobs: int):
    """Register joblib's Ray backend and connect to (or start) Ray; shut down what was started here."""
    try:
        import ray
        from ray.util.joblib import register_ray
    except ImportError as exc:
        raise ImportError("the ray backend needs ray: pip install 'primo-systems[ray]'") from exc
    register_ray()
    if ray.is_initialized():
        if address not in (None, "local"):
            raise ValueError(f"Ray is already initialized in this process; cannot connect to {address!r}")
        yield
        return
    if address in (None, "local"):
        ray.init(num_cpus=n_jobs if n_jobs > 0 else None, include_dashboard=False)
    else:
        ray.init(address=address)
    try:
        yield
    finally:
        ray.shutdown()
