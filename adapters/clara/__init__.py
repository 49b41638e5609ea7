"""Clara (SmartNIC offloading, SOSP'21) case study: its three prediction tasks and black boxes.

* :mod:`adapters.clara.data` — loaders for MS (core counts), AI (CRC loops) and CP (instruction
  counts) data, and Clara's LSTM weights;
* :mod:`adapters.clara.metrics` — MAE, positive-class precision/recall/F1, Clara's per-NF WMAPE;
* :mod:`adapters.clara.lstm` — Clara's pretrained CP LSTM in numpy (teacher / baseline);
* :mod:`adapters.clara.cp_features` — readable features of CP token sequences;
* :mod:`adapters.clara.baselines` — Clara's models and the paper's alternative baselines;
* ``python -m adapters.clara.evaluate_baselines`` — the baseline table beside the references.
"""
