"""`python -m benchmarks.retrieval ...`: the same run as `sightline bench ...` (see `cli.main`)."""

from benchmarks.retrieval.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
