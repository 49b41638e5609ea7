"""Case-study adapters: one sub-package per learning-augmented system. They import primo, never the reverse."""
