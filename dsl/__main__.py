"""`python -m dsl` runs the `drama` command."""

from .cli import main

# named as the command is, so that usage lines read `drama run ...` whichever way it started
main(prog_name="drama")
