"""Running a method: what crosses the boundary between the harness and a method, checked."""
