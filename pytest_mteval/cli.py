"""mteval command line (being written)."""
def main() -> int:
    return 0
