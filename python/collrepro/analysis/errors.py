"""The one exception type for bad input (kept free of heavy imports)."""


class InputError(Exception):
    """Bad input (schema, missing files, unusable data); the CLI exits with 2."""
