"""The one exception type for bad input (kept free of heavy imports)."""

from collrepro.safeio import UserError


class InputError(UserError):
    """Bad input (schema, missing files, unusable data); the CLI exits with 2."""
