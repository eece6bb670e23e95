"""argparse with one-line errors: a usage error is a UserError (exit 2), one line on standard
error under safeio.run_cli, instead of argparse's usage block and exit."""

import argparse

from collrepro.safeio import UserError


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose errors are `UserError("<message> (see <prog> --help)")`.
    Sub-parsers made with add_subparsers() are of the same class (argparse's default)."""

    def error(self, message):
        raise UserError(f"{message} (see {self.prog} --help)")
