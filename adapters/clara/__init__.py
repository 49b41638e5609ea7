"""Clara (SmartNIC offloading, SOSP'21) case study: its three prediction tasks and black boxes.

* :mod:`adapters.clara.data` — loaders for MS (core counts), AI (CRC loops) and CP (instruction
  counts) data, and Clara's LSTM weights;
* :mod:`adapters.clara.metrics` — MAE, positive-class precision/recall/F1, Clara's per-NF WMAPE;
* :mod:`adapters.clara.lstm` — Clara's pretrained CP LSTM in numpy (teacher / baseline);
* :mod:`adapters.clara.cp_features` — readable features of CP token sequences;
* :mod:`adapters.clara.baselines` — Clara's models and the paper's alternative baselines;
* ``python -m adapters.clara.evaluate_baselines`` — the baseline table beside the references;
* :mod:`adapters.clara.augment` — generated CP blocks (concatenations, crops) for distillation;
* :mod:`adapters.clara.primo_models` — Primo's PrAMs per task: budgets, BO spaces, CP pipelines,
  LSTM distillation;
* :mod:`adapters.clara.primo_plus` — PRIMO+ (monotone MS shapes, CV-chosen counterfactual edit on AI);
* :mod:`adapters.clara.casestudy` — ``primo casestudy clara``: results.json, README.md, HTML reports
  (:mod:`adapters.clara.readme` renders the README, :mod:`adapters.clara.published` holds the
  paper's and the reference numbers).
"""
