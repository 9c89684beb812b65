"""Speed measurements of the engine and environments, beside their peers (``python -m benchmarks``).

Apart from that run: ``python -m benchmarks.profile_engine`` (where a step of the engine spends
its time) and ``python -m benchmarks.rllib_scaling`` (``train.py``'s env steps per second with
RLlib's env runners and with SB3; it trains, for minutes).
"""
