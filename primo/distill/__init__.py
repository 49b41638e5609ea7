"""Distill engine: turn a black-box teacher into a PrDT or PrAM student.

* :func:`distill` — supervised distillation of a predictor (hard or soft labels, data
  augmentation, Bayesian search on fidelity); fidelity and accuracy on held-out inputs.
* :class:`ViperDistiller` — policy extraction (VIPER / DAgger) from an RL teacher through a
  Gymnasium-style environment protocol (:mod:`primo.distill.protocols`).

Both return ordinary Primo models whose ``metadata_["distillation"]`` holds the method, the
held-out fidelity, one record per iteration, the teacher's description and the options; they
save with ``model.save(path)`` like any other model.

Example
-------
>>> from primo.distill import distill, ViperDistiller
>>> tree = distill(mlp, X, "prdt", y=y, random_state=0)  # doctest: +SKIP
>>> policy = ViperDistiller(random_state=0).fit(actor, make_env).best_student_  # doctest: +SKIP
"""
from primo.distill.augment import augment, perturb, sample_marginals
from primo.distill.fidelity import accuracy_report, fidelity_report, probability_report
from primo.distill.protocols import Environment, PolicyTeacher, describe_teacher
from primo.distill.rollout import Episode, rollout, student_policy
from primo.distill.supervised import distill, predict_labels
from primo.distill.viper import ViperDistiller

__all__ = [
    "distill",
    "predict_labels",
    "ViperDistiller",
    "PolicyTeacher",
    "Environment",
    "Episode",
    "rollout",
    "student_policy",
    "augment",
    "perturb",
    "sample_marginals",
    "fidelity_report",
    "accuracy_report",
    "probability_report",
    "describe_teacher",
]
