"""Scheduling policies behind one interface (:class:`Policy`)."""
from .base import FIFOPolicy, Policy, QSSFPolicy, QueueOrderPolicy, SJFPolicy
from .lucid import LucidPolicy, ThroughputAwareStrategy
from .tiresias import TiresiasPolicy

__all__ = ["Policy", "QueueOrderPolicy", "FIFOPolicy", "SJFPolicy", "QSSFPolicy", "TiresiasPolicy",
           "LucidPolicy", "ThroughputAwareStrategy"]
