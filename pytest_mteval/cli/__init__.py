"""The ``mteval`` command line: thin subcommands over the other layers."""
