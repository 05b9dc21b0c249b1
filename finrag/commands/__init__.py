"""The subcommands of `python -m finrag`, one module each: its arguments, its run, its print.

finrag.cli builds the parser from them; query.py holds what search, ask and canary share.
"""
