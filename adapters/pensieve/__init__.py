"""Pensieve (SIGCOMM'17) case study: adaptive-bitrate video streaming.

System side: the trace and video loaders, a simulator with the exact semantics of Pensieve's
evaluation environment, the pretrained actor run with numpy, the classic ABR baselines, an
evaluation harness, and a Gymnasium-style environment whose named observation rebuilds the actor's
state exactly (the teacher for distillation).

Primo side: the actor as a teacher over the 25 features a developer reasons with
(:mod:`~adapters.pensieve.student`), its VIPER distillation into a PrDT
(:mod:`~adapters.pensieve.distillation`), the tree as a JavaScript ABR rule and a C header
(:mod:`~adapters.pensieve.abr_rule`), and the whole case study behind ``primo casestudy pensieve``
(:mod:`~adapters.pensieve.casestudy`, which writes ``reports/pensieve``).

Example
-------
>>> from adapters.pensieve import PensieveEnv, ActorTeacher, load_actor, load_trace_set, load_video
>>> env = PensieveEnv(load_trace_set("hsdpa"), load_video())  # doctest: +SKIP
>>> teacher = ActorTeacher(load_actor())  # doctest: +SKIP
>>> obs, info = env.reset()  # doctest: +SKIP
>>> obs, reward, terminated, truncated, info = env.step(teacher.act(obs))  # doctest: +SKIP
>>> tree = distill_actor(load_actor(), load_video(), load_trace_set("hsdpa")).best_student_  # doctest: +SKIP
"""
from adapters.pensieve.abr_rule import abr_rule_c, abr_rule_js, metrics_from_observation
from adapters.pensieve.actor import PensieveActor, WeightsFormatError, load_actor, read_tfjs_weights
from adapters.pensieve.baselines import BolaPolicy, BufferBasedPolicy, Policy, RateBasedPolicy, RobustMPCPolicy
from adapters.pensieve.distillation import distill_actor
from adapters.pensieve.env import PensieveEnv
from adapters.pensieve.evaluation import (
    EvaluationResult, VideoRun, evaluate_policy, pensieve_logs, play_traces, play_video,
)
from adapters.pensieve.golden import golden_qoe, load_golden_log, load_golden_logs, replay_golden
from adapters.pensieve.metis import TreePolicy, collect_teacher_rollouts, fit_metis_tree
from adapters.pensieve.observation import FEATURE_NAMES, ObservationHistory, states_from_observations
from adapters.pensieve.simulator import ABRSimulator, ChunkOutcome, linear_qoe_reward
from adapters.pensieve.state import initial_state, update_state
from adapters.pensieve.student import (
    STUDENT_FEATURES, DistillationEnvFactory, StudentObservationEnv, StudentPolicy, StudentViewTeacher, student_view,
)
from adapters.pensieve.teacher import ActorTeacher, sample_level
from adapters.pensieve.qweights import QRecordingEnvFactory, QWeightedTeacher, monte_carlo_q_values
from adapters.pensieve.traces import (
    Trace, TraceFormatError, load_mahimahi_trace, load_trace, load_trace_dir, load_trace_set, split_traces,
)
from adapters.pensieve.video import BITRATES_KBPS, Video, load_video

__all__ = [
    "ABRSimulator", "ActorTeacher", "BITRATES_KBPS", "BolaPolicy", "BufferBasedPolicy", "ChunkOutcome",
    "DistillationEnvFactory", "EvaluationResult", "FEATURE_NAMES", "ObservationHistory", "PensieveActor",
    "PensieveEnv", "Policy", "QRecordingEnvFactory", "QWeightedTeacher", "RateBasedPolicy", "RobustMPCPolicy", "STUDENT_FEATURES", "StudentObservationEnv",
    "StudentPolicy", "StudentViewTeacher", "Trace", "TraceFormatError", "TreePolicy", "Video", "VideoRun",
    "WeightsFormatError", "abr_rule_c", "abr_rule_js", "collect_teacher_rollouts", "distill_actor",
    "evaluate_policy", "fit_metis_tree", "golden_qoe", "initial_state", "linear_qoe_reward", "load_actor",
    "load_golden_log", "load_golden_logs", "load_mahimahi_trace", "load_trace", "load_trace_dir", "load_trace_set",
    "load_video", "metrics_from_observation", "monte_carlo_q_values", "pensieve_logs", "play_traces", "play_video",
    "read_tfjs_weights", "replay_golden", "sample_level", "split_traces", "states_from_observations", "student_view",
    "update_state",
]
