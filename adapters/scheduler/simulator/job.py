"""The simulator's view of one job: trace attributes plus mutable run state."""
from __future__ import annotations

from enum import Enum

from .profiles import WorkloadProfile


class JobState(str, Enum):
    PENDING = "pending"    # not submitted yet
    WAITING = "waiting"    # submitted, not running
    RUNNING = "running"
    DONE = "done"


class SimJob:
    """A trace job during simulation.

    Trace attributes (``job_id``, ``user``, ``name``, ``vc``, ``gpu_num``, ``cpu_num``,
    ``submit_time``, ``duration``) are what predictors may read; ``duration`` is the true
    run time, so only oracle predictors should use it. ``profile`` is the workload profile a
    scheduler has *observed* (``None`` until a profiler or a first run reveals it);
    ``true_profile`` is the sampled one the simulator uses for colocated speeds.

    Work is counted in exclusive-seconds: ``remaining`` drops at ``speed`` per second of wall
    time (1.0 alone on its GPUs, the measured colocated speed when sharing).
    """

    __slots__ = (
        "idx", "job_id", "user", "name", "vc", "gpu_num", "cpu_num", "submit_time", "duration",
        "true_profile", "profile", "state", "pool", "gpus", "partner", "remaining", "speed",
        "last_update", "version", "epoch", "first_start", "end_time", "run_time", "attained",
        "run_start", "preemptions", "overhead", "packed_time", "profiled",
        "finished_in_profiler", "priority", "level",
    )

    def __init__(self, idx: int, job_id: str, user: str, name: str, vc: str, gpu_num: int, cpu_num: int,
                 submit_time: float, duration: float, true_profile: WorkloadProfile | None = None):
        self.idx = idx
        self.job_id = job_id
        self.user = user
        self.name = name
        self.vc = vc
        self.gpu_num = gpu_num
        self.cpu_num = cpu_num
        self.submit_time = submit_time
        self.duration = duration
        self.true_profile = true_profile
        self.profile: WorkloadProfile | None = None
        self.state = JobState.PENDING
        self.pool = None            # the ResourcePool the job runs in
        self.gpus: tuple[int, ...] = ()
        self.partner: SimJob | None = None
        self.remaining = duration   # exclusive-seconds of work left
        self.speed = 0.0
        self.last_update = submit_time
        self.version = 0            # bumps on start/stop/speed change: stale completion events are dropped
        self.epoch = 0              # bumps on start/stop: stale policy ticks are dropped
        self.first_start = float("nan")
        self.end_time = float("nan")
        self.run_time = 0.0         # wall time spent running (anywhere)
        self.attained = 0.0         # GPU-seconds of wall time run (Tiresias' attained service)
        self.run_start = float("nan")
        self.preemptions = 0
        self.overhead = 0.0         # exclusive-seconds added by restarts
        self.packed_time = 0.0      # wall time spent sharing GPUs
        self.profiled = False
        self.finished_in_profiler = False
        self.priority = 0.0         # free for policies
        self.level = 0              # free for policies (Tiresias queue level)

    def __repr__(self) -> str:
        return f"SimJob({self.job_id!r}, gpus={self.gpu_num}, state={self.state.value})"
