"""`python -m dsl` and the `drama` command (pyproject.toml's entry point): the command line, with the collector made rare from its first import."""

from .collector import for_the_command_line


def main() -> None:
    """Run the `drama` command on `sys.argv`."""
    for_the_command_line()            # before the imports: dsl/collector.py says why
    try:
        from .cli import main as command
        # named as the command is, so that usage lines read `drama run ...` whichever way it started
        command(prog_name="drama")
    except ModuleNotFoundError as missing:
        if (missing.name or "dsl").split(".")[0] == "dsl":
            raise                     # (a module of our own: a bug, not an install)
        import sys
        print(f"drama: error: the module '{missing.name}' is not installed: drama's dependencies are "
              "installed with it (`pip install .` in its folder, or `pip install drama`)", file=sys.stderr)
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
