"""Speed measurements of the engine and environments, beside their peers (``python -m benchmarks``)."""
