"""Distil Pensieve's actor into a PrDT with Primo's VIPER engine, on HSDPA traces only.

The teacher is the actor over the student's 25 features (:class:`~adapters.pensieve.student.StudentViewTeacher`,
exactly the actor's output). Training episodes are videos on randomly chosen training traces with
Pensieve's training-time variants (delay noise ×U(0.9, 1.1), random start point), so that the
aggregated states are not the same few trajectories again and again. Each iteration's student is
scored by playing every training trace once as in the evaluation (no noise, from the trace's
start), and the best by that reward is kept (:class:`primo.distill.ViperDistiller`): the selection
uses the training traces, never the test traces.
The pruning (``ccp_alpha``) of every iteration's tree is chosen by Bayesian search on
S = (1 − agreement with the actor) + λ·(leaves × depth).

Example
-------
>>> distiller = distill_actor(load_actor(), load_video(), load_trace_set("hsdpa"), random_state=0)  # doctest: +SKIP
>>> distiller.best_student_.n_leaves_, distiller.history_["reward"].max()  # doctest: +SKIP
"""
from __future__ import annotations

import logging
from typing import Sequence

from threadpoolctl import threadpool_limits

from primo.distill import ViperDistiller

from adapters.pensieve.actor import PensieveActor
from adapters.pensieve.qweights import QRecordingEnvFactory, QWeightedTeacher
from adapters.pensieve.student import DistillationEnvFactory, StudentViewTeacher
from adapters.pensieve.traces import Trace
from adapters.pensieve.video import Video

logger = logging.getLogger(__name__)


def distill_actor(
    actor: PensieveActor,
    video: Video,
    traces: Sequence[Trace],
    *,
    n_iterations: int = 10,
    episodes_per_iteration: int = 60,
    eval_traces: int | None = None,
    n_trials: int = 12,
    lam: float = 3e-5,
    training_variants: bool = True,
    validation_traces: Sequence[Trace] | None = None,
    bandwidth_scale: tuple[float, float] | None = None,
    weighting: str = "auto",
    q_labels: bool = False,
    n_jobs: int = 1,
    random_state: int | None = 0,
    progress: bool = False,
) -> ViperDistiller:
    """Run VIPER from the actor to a PrDT over the student features; returns the fitted distiller.

    Parameters
    ----------
    actor : PensieveActor
    video : Video
    traces : sequence of Trace
        Training traces (the case study passes HSDPA only).
    n_iterations, episodes_per_iteration, n_trials, lam, n_jobs, random_state, progress
        See :class:`primo.distill.ViperDistiller`; ``lam`` weighs the tree's leaves × depth in the
        search objective (3e-5: one point of agreement is worth about 330 units of leaves × depth).
    eval_traces : int, optional
        Score the students on the first ``eval_traces`` validation traces only (default: all).
    training_variants : bool, default True
        Play episodes with delay noise and random start points (Pensieve's training environment).
    validation_traces : sequence of Trace, optional
        Traces that score every iteration's student to choose the best (default: ``traces``, the
        training traces themselves); pass traces never rolled out on to select out of sample.
    bandwidth_scale : (float, float), optional
        Multiply each training episode's bandwidth by a log-uniform factor in this range (more
        diverse rollouts); see :class:`~adapters.pensieve.student.DistillationEnvFactory`.
    weighting : {"auto", "margin", "q", "uniform"}, default "auto"
        State weights of :class:`primo.distill.ViperDistiller` ("auto" = the actor's probability
        margin; "q" = VIPER's l(s) from Monte-Carlo Q-values measured in the simulator, see
        :mod:`adapters.pensieve.qweights`, ``n_jobs=1`` only; "uniform" = DAgger).
    q_labels : bool, default False
        With ``weighting="q"``: label the rolled-out states with argmax of the Monte-Carlo Q-values
        instead of the actor's action (an improved, myopic teacher; experimental).

    Returns
    -------
    ViperDistiller
        ``best_student_`` is the PrDT (its ``metadata_["distillation"]`` holds every iteration).

    Example
    -------
    >>> distiller = distill_actor(actor, video, traces, n_iterations=2)  # doctest: +SKIP
    >>> distiller.best_student_.n_leaves_  # doctest: +SKIP
    """
    make_env = DistillationEnvFactory(traces, video, training_variants=training_variants,
                                      validation_traces=validation_traces, bandwidth_scale=bandwidth_scale)
    teacher = StudentViewTeacher(actor, video)
    if q_labels and weighting != "q":
        raise ValueError("q_labels=True needs weighting='q' (the Q-values are recorded only then)")
    if weighting == "q":
        if n_jobs != 1:
            raise ValueError("weighting='q' records Q-values during the rollouts in this process: use n_jobs=1")
        cache: dict = {}
        teacher = QWeightedTeacher(actor, video, cache, improve=q_labels)
        make_env = QRecordingEnvFactory(make_env, actor, cache)
    eval_seeds = make_env.evaluation_seeds
    if eval_traces is not None:
        eval_seeds = eval_seeds[:eval_traces]
    distiller = ViperDistiller(
        n_iterations=n_iterations, episodes_per_iteration=episodes_per_iteration, eval_seeds=eval_seeds,
        n_trials=n_trials, lam=lam, weighting=weighting, n_jobs=n_jobs, random_state=random_state, progress=progress,
    )
    # The search's Gaussian process works on tiny matrices: multi-threaded BLAS only adds contention.
    with threadpool_limits(1):
        distiller.fit(teacher, make_env)
    best = distiller.best_student_
    logger.info("distilled PrDT: iteration %d, %d leaves, depth %d", distiller.best_iteration_, best.n_leaves_,
                best.depth_)
    return distiller
