"""Which token features and which training targets suit a PrAM on Clara-CP?

Companion of ``benchmarks/clara_cp_features.py`` (which chose the linear baselines' features).
Every candidate is scored by 3-fold cross-validated MAE on ``cp_synthetic`` only, always against
the *measured* instruction counts, whatever the training target; the real NFs are not loaded.

Feature designs (:class:`adapters.clara.cp_features.CPTokenFeatures`): token counts with the
first/last-token indicators (the ridge baseline's design), with the block length added, and
with 50 bigram counts on top. An additive model cannot share one slope across count levels the
way a linear model does, so the length (which alone correlates 0.93 with the count) gives it a
smooth main effect to correct with token counts.

Targets: ``y`` (measured counts); ``lstm`` (Clara's LSTM's predictions on the same blocks);
``lstm+gen`` (LSTM predictions on the blocks plus ``--generated`` × as many generated ones,
:func:`adapters.clara.augment.augment_blocks`, built from the training folds only); ``y+gen``
(measured counts on the blocks, the LSTM's predictions on the generated ones only).

The PrAM is :func:`adapters.clara.primo_models.pram_template` with the full case-study budget.

Run: ``python benchmarks/clara_cp_pram_design.py [--data-dir DIR] [--generated 1]`` (≈ 6 min CPU).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.model_selection import KFold

from adapters.clara.augment import augment_blocks
from adapters.clara.data import CP_TARGET_SCALE, load_cp
from adapters.clara.lstm import ClaraLSTMRegressor
from adapters.clara.primo_models import FULL, cp_pipeline, pram_template

DESIGNS = {
    "counts + first/last": dict(length=False, boundary_tokens=True),
    "length + counts + first/last": dict(length=True, boundary_tokens=True),
    "length + counts + first/last + 50 bigrams": dict(length=True, boundary_tokens=True, n_bigrams=50),
}
TARGETS = ("y", "lstm", "lstm+gen", "y+gen")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--designs", nargs="+", choices=list(DESIGNS), default=list(DESIGNS))
    parser.add_argument("--targets", nargs="+", choices=TARGETS, default=list(TARGETS))
    parser.add_argument("--generated", type=float, default=1.0, help="generated blocks per training block")
    args = parser.parse_args(argv)
    synthetic = load_cp("synthetic", args.data_dir)
    X, y = synthetic.X.astype(np.int64), synthetic.y
    lstm = ClaraLSTMRegressor(data_dir=args.data_dir).fit()
    y_lstm = lstm.predict(X)
    folds = list(KFold(3, shuffle=True, random_state=args.seed).split(X))
    generated = []
    for number, (train, _) in enumerate(folds):
        blocks = augment_blocks(X[train], int(args.generated * len(train)), random_state=args.seed + number)
        generated.append((blocks, lstm.predict(blocks)))
    print(f"Clara LSTM itself: CV-fold MAE {np.abs(y_lstm - y).mean() * CP_TARGET_SCALE:.3f} instructions")
    print(f"generated blocks per training block: {args.generated:g}")
    print(f"{'design':44s} {'target':9s} {'cv_mae':>7s} {'cpu_s':>6s}")
    for design in args.designs:
        for target in args.targets:
            errors, start = [], time.process_time()
            for (train, valid), (blocks, labels) in zip(folds, generated):
                X_fit, y_fit = X[train], (y if target.startswith("y") else y_lstm)[train]
                if target.endswith("+gen"):
                    X_fit, y_fit = np.vstack([X_fit, blocks]), np.r_[y_fit, labels]
                model = cp_pipeline(pram_template("CP", FULL["CP"], args.seed), **DESIGNS[design]).fit(X_fit, y_fit)
                errors.append(np.abs(model.predict(X[valid]) - y[valid]).mean() * CP_TARGET_SCALE)
            print(f"{design:44s} {target:9s} {np.mean(errors):7.3f} {time.process_time() - start:6.1f}", flush=True)


if __name__ == "__main__":
    main()
