"""Predictions straight from a model file's tables, without building the scikit-learn or interpret estimator.

:func:`primo.load` rebuilds a PrDT as a scikit-learn tree and a PrAM as an interpret EBM, and importing
those two libraries costs about 1.6 s of CPU: most of a ``primo predict`` call on a small table. The
file already holds everything a prediction reads (the tables every export is generated from,
:mod:`primo.export.tables`), so :func:`read_predictor` reads and checks the file, builds those tables
and predicts with NumPy and pandas alone.

What stays the same as the model :func:`primo.load` builds:

* **the file checks** -- the same reading limits and the same structure checks (:mod:`primo.validation`),
  with the same messages. Left to :func:`primo.load` are only the checks that guard the estimators'
  constructors, which are never called here: constructor parameters are read as plain values but not
  matched against scikit-learn's or interpret's signatures, and PrDT node records need the fields read,
  not scikit-learn's exact memory layout;
* **the input checks** -- :func:`primo.models._base.check_prediction_input`, the function the models
  call, so a missing column, text in a numeric column or infinity for a PrDT gives the same error;
* **the encoding** -- PrDT encodes DataFrames with :func:`primo.models.encoding.encode_table` as the
  model does (unseen categories are missing); PrAM uses the export encoding, which reproduces
  interpret's bins (unseen categories land in the unseen bin);
* **the predictions** -- equal to the estimator's (tested on real rows); PrAM probabilities use
  NumPy's exponential where interpret uses its own, so they may differ in the last bit or two.

Where the tables cannot give the estimator's answer -- a tree with several outputs, an unknown model
class -- :class:`NeedsEstimator` is raised and the caller falls back to :func:`primo.load`.

Example
-------
>>> predictor = read_predictor("model.primo")  # doctest: +SKIP
>>> predictor.predict(pd.read_csv("rows.csv")[list(predictor.feature_names_in_)])  # doctest: +SKIP
array([3., 1., 2.])
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd

from primo.export.tables import AdditiveTables, TreeTables, encode_categories, state_tables
from primo.io import decode_tree, read_document
from primo.models._base import check_prediction_input
from primo.models.encoding import encode_table, needs_encoding
from primo.validation import FileLimits, ModelFileError, validate_metadata, validate_params, validate_state

#: The model classes whose files :func:`read_predictor` reads (the others need :func:`primo.load`).
TABLE_CLASSES = ("PrDTClassifier", "PrDTRegressor", "PrAMClassifier", "PrAMRegressor")


class NeedsEstimator(Exception):
    """The tables cannot give the estimator's answer here: build the model with :func:`primo.load`."""


class SavedModelPredictor:
    """A saved PrDT or PrAM that predicts from its tables; its class is named after the saved model's
    (so error messages read as the model's own), e.g. ``PrDTRegressor``.

    Attributes: ``n_features_in_``, ``feature_names_in_`` (when fit on a DataFrame), ``tables``.
    """

    def __init__(self, state: dict, tables: TreeTables | AdditiveTables):
        self.tables = tables
        self.n_features_in_ = int(state["n_features_in_"])
        names = state.get("feature_names_in_")
        if names is not None:
            self.feature_names_in_ = np.asarray([str(n) for n in names], dtype=object)
        self._is_tree = isinstance(tables, TreeTables)
        if self._is_tree:
            self._categories = {int(j): list(v) for j, v in state.get("categories_", {}).items()}
            self._numeric_features = [j for j in range(self.n_features_in_) if j not in self._categories]
        else:
            kinds = state["ebm_"]["fitted"]["feature_types_in_"]
            self._numeric_features = [j for j, kind in enumerate(kinds) if kind == "continuous"]

    # What check_prediction_input asks of a model (the same answers the estimator gives).
    def __sklearn_is_fitted__(self) -> bool:
        return True

    @property
    def _accepts_infinity(self) -> bool:
        return not self._is_tree  # PrAM bins ±infinity beyond its edges; a PrDT refuses it

    def _features_read_as_numbers(self) -> list[int]:
        return self._numeric_features

    @property
    def feature_names_(self) -> list[str]:
        names = getattr(self, "feature_names_in_", None)
        return [f"x{i}" for i in range(self.n_features_in_)] if names is None else list(names)

    def _rows(self, X) -> np.ndarray:
        """Checked, encoded float64 rows in the model's feature order."""
        checked = check_prediction_input(self, X, numeric_frames_as_arrays=True)
        if not self._is_tree:
            return encode_categories(self.tables, checked)
        if self._categories or needs_encoding(checked):
            # The PrDT's own encoding of its input (prdt._PrDTMixin._encode_checked), for the same codes.
            if not isinstance(checked, pd.DataFrame):
                checked = pd.DataFrame(np.asarray(checked), columns=self.feature_names_).infer_objects()
            checked = encode_table(checked, self._categories)
        return np.asarray(checked, dtype=np.float64)  # values beyond float32's range were refused, as the tree does

    def predict(self, X) -> np.ndarray:
        """Predicted class or value of each row, as the saved model's ``predict``."""
        return self.tables.predict(self._rows(X))


class SavedClassifierPredictor(SavedModelPredictor):
    """A saved classifier: adds ``classes_`` and ``predict_proba``."""

    def __init__(self, state: dict, tables: TreeTables | AdditiveTables):
        super().__init__(state, tables)
        self.classes_ = tables.classes

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities of each row, columns in the order of ``classes_``."""
        return self.tables.predict_proba(self._rows(X))


_PREDICTOR_CLASSES = {
    name: type(name, (SavedClassifierPredictor if name.endswith("Classifier") else SavedModelPredictor,),
               {"__module__": __name__, "__doc__": f"A saved {name} predicting from its tables."})
    for name in TABLE_CLASSES
}


def read_predictor(path: str | os.PathLike, *, limits: FileLimits | None = None) -> SavedModelPredictor:
    """Read a model file into a predictor over its tables (module docstring), without scikit-learn or interpret.

    Raises
    ------
    ModelFileError
        The file is not a valid Primo model (the same messages as :func:`primo.load`).
    FileNotFoundError
        There is no file at ``path``.
    NeedsEstimator
        The file is valid as far as read, but only :func:`primo.load` can predict with it.

    Example
    -------
    >>> read_predictor("tree.primo").predict([[1.0, 2.0]])  # doctest: +SKIP
    array([0.5])
    """
    document, arrays = read_document(path, limits=limits)
    model_class = document["model_class"]
    if model_class not in TABLE_CLASSES:
        raise NeedsEstimator(f"model class {model_class!r} has no tables")
    try:  # in primo.io.model_from_document's order, so that a damaged file fails here as it does there
        validate_params(None, decode_tree(document["params"], arrays))
        state = decode_tree(document["state"], arrays)
        validate_state(model_class, state, building_estimator=False)
        validate_metadata(decode_tree(document.get("metadata", {}), arrays))
    except ModelFileError as exc:
        raise ModelFileError(f"{path}: {exc}") from None
    try:
        tables = state_tables(model_class, state)
    except ValueError as exc:  # e.g. a tree with several outputs
        raise NeedsEstimator(str(exc)) from None
    return _PREDICTOR_CLASSES[model_class](state, tables)
