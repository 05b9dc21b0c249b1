"""`python -m finrag search|ask|canary|eval|bench|stress`: the argparse surface. Each
subcommand's arguments, run and print live in its own module under finrag/commands/."""

from __future__ import annotations

import argparse
import sys

from finrag.commands import ask, bench, canary, evaluate, search, stress

EXIT_OK, EXIT_FAIL = 0, 1
COMMANDS = (search, ask, canary, bench, stress, evaluate)  # the order --help lists them


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except (RuntimeError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAIL


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line and exit 1, like every other bad input."""

    def error(self, message: str):
        self.exit(EXIT_FAIL, f"error: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m finrag", description="Search indexed 10-Ks.")
    sub = p.add_subparsers(required=True, metavar="{search,ask,canary,eval,bench,stress}")
    for command in COMMANDS:
        command.register(sub)
    return p
