"""What every Primo model shares: complexity, metadata, model files, input checks."""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted


class PrimoModelMixin:
    """Mixin for Primo estimators.

    Subclasses implement ``complexity_`` (the paper's C(θ)) and ``_get_state``/``_set_state``
    (their fitted attributes as plain values and arrays, for :mod:`primo.io`). ``metadata_`` is a
    JSON-able dict carried in the model file: search history, distillation history, edit log.
    """

    def save(self, path, *, overwrite_read_only=False):
        """Save the fitted model to ``path`` atomically; reload with :func:`primo.load`.

        A read-only ``path`` is refused unless ``overwrite_read_only=True``.

        Example
        -------
        >>> model.save("model.primo")  # doctest: +SKIP
        """
        from primo.io import save_model

        check_is_fitted(self)
        return save_model(self, path, overwrite_read_only=overwrite_read_only)

    @property
    def feature_names_(self) -> list[str]:
        """Feature names used in printed rules and reports (``x0``, ``x1``… when fit on arrays)."""
        check_is_fitted(self)
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            return [f"x{i}" for i in range(self.n_features_in_)]
        return [str(n) for n in names]


def check_prediction_input(model, X):
    """Check X against what the model was fit on, naming the problem when it does not match.

    Returns X unchanged (DataFrames keep their column types).
    """
    check_is_fitted(model)
    known = getattr(model, "feature_names_in_", None)
    if isinstance(X, pd.DataFrame):
        if known is not None:
            X = X.set_axis([str(c) for c in X.columns], axis=1)
            columns = list(X.columns)
            unknown = [c for c in columns if c not in set(known)]
            missing = [c for c in known if c not in set(columns)]
            if unknown or missing:
                raise ValueError(
                    f"feature names do not match the model's: unknown {unknown or 'none'}, "
                    f"missing {missing or 'none'}"
                )
            return X[list(known)]
        n_columns = X.shape[1]
    else:
        X = np.asarray(X) if not hasattr(X, "shape") else X
        if X.ndim != 2:
            raise ValueError(
                f"expected a 2-D array of shape (n_samples, {model.n_features_in_}), got {X.ndim}-D; "
                "Reshape your data with X.reshape(1, -1) for a single row"
            )
        n_columns = X.shape[1]
    if n_columns != model.n_features_in_:
        raise ValueError(
            f"X has {n_columns} features, but {type(model).__name__} is expecting {model.n_features_in_} features as input"
        )
    return X
