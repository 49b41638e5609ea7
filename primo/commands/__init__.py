"""One module per ``primo`` sub-command; each defines ``register(subparsers)``."""
