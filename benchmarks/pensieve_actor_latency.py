"""Per-decision inference latency of Pensieve's actor run with numpy (one state at a time).

Measures, on states visited by the actor itself on HSDPA:
- ``actor``: ``PensieveActor.action_probabilities`` on one 6x8 state (input checks included);
- ``teacher``: ``ActorTeacher.act`` on one observation (state rebuilt from the 41 features, argmax).
Also reports the actor's parameter count.

Run: ``python benchmarks/pensieve_actor_latency.py [--data-dir DIR] [--repeats 20000]``
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from adapters.pensieve import ActorTeacher, PensieveEnv, load_actor, load_trace_set, load_video
from adapters.pensieve.metis import collect_teacher_rollouts
from adapters.pensieve.observation import states_from_observations


def time_per_call_us(function, inputs, repeats: int) -> np.ndarray:
    """Wall time in microseconds of ``function(x)`` for ``repeats`` inputs cycled from ``inputs``."""
    for x in inputs[:100]:  # warm-up
        function(x)
    timings = np.empty(repeats)
    for i in range(repeats):
        x = inputs[i % len(inputs)]
        start = time.perf_counter_ns()
        function(x)
        timings[i] = (time.perf_counter_ns() - start) / 1000.0
    return timings


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Pensieve actor per-decision latency (numpy)")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--repeats", type=int, default=20000)
    args = parser.parse_args(argv)

    actor = load_actor(args.data_dir)
    teacher = ActorTeacher(actor)
    env = PensieveEnv(load_trace_set("hsdpa", args.data_dir)[:10], load_video(args.data_dir))
    observations, _ = collect_teacher_rollouts(env, teacher)
    states = states_from_observations(observations)

    print(f"actor parameters: {actor.n_parameters}; {len(states)} states visited by the actor, "
          f"{args.repeats} calls per path")
    for label, function, inputs in (
        ("actor (6x8 state -> probabilities)", actor.action_probabilities, states),
        ("teacher (obs -> state -> argmax level)", teacher.act, observations),
    ):
        t = time_per_call_us(function, inputs, args.repeats)
        print(f"{label:<42} median {np.median(t):7.1f} us   mean {t.mean():7.1f} us   "
              f"p99 {np.percentile(t, 99):7.1f} us")


if __name__ == "__main__":
    main()
