"""`python -m dsl` runs the `drama` command."""

from .cli import main

main()
