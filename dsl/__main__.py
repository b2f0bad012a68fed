"""`python -m dsl` and the `drama` command (pyproject.toml's entry point): the command line, with the collector made rare from its first import."""

from .collector import for_the_command_line


def main() -> None:
    """Run the `drama` command on `sys.argv`."""
    for_the_command_line()            # before the imports: dsl/collector.py says why
    from .cli import main as command
    # named as the command is, so that usage lines read `drama run ...` whichever way it started
    command(prog_name="drama")


if __name__ == "__main__":
    main()
