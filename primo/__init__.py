"""Primo: interpretable models for learning-augmented systems."""
__version__ = "0.1.0"
