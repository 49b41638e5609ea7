"""Trace-driven GPU cluster simulator and scheduling policies (FIFO, SJF, QSSF, Tiresias, Lucid).

Typical use::

    from adapters.scheduler.simulator import (Simulator, WorkloadCatalog, assign_profiles,
                                              LucidPolicy)
    catalog = WorkloadCatalog.from_data_dir()
    profiles = assign_profiles(jobs, catalog, seed=0)
    result = Simulator(jobs, {"vc1": 4}, LucidPolicy(), catalog=catalog, profiles=profiles).run()
    result.summary()
"""
from .cluster import GPUS_PER_NODE, AllocationError, ResourcePool
from .engine import InvariantError, Simulator
from .job import JobState, SimJob
from .metrics import SimulationResult
from .policies import (FIFOPolicy, LucidPolicy, Policy, QSSFPolicy, QueueOrderPolicy, SJFPolicy,
                       ThroughputAwareStrategy, TiresiasPolicy)
from .predictors import (ModelEstimator, MovingAverageForecast, OracleEstimator, OracleThroughputForecast,
                         RollingHistoryEstimator, TableSharingScorer, ThroughputHistory, estimate_many)
from .profiles import TIER_PROBS, WorkloadCatalog, WorkloadProfile, assign_profiles

__all__ = [
    "GPUS_PER_NODE", "AllocationError", "ResourcePool", "InvariantError", "Simulator", "JobState", "SimJob",
    "SimulationResult", "Policy", "QueueOrderPolicy", "FIFOPolicy", "SJFPolicy", "QSSFPolicy", "TiresiasPolicy",
    "LucidPolicy", "ThroughputAwareStrategy", "OracleEstimator", "ModelEstimator", "RollingHistoryEstimator", "TableSharingScorer",
    "MovingAverageForecast", "OracleThroughputForecast", "ThroughputHistory", "estimate_many",
    "TIER_PROBS", "WorkloadCatalog", "WorkloadProfile", "assign_profiles",
]
