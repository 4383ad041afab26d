"""Running a method out of the harness process: runner, protocol, sandbox and LLM gateway."""
