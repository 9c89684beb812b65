"""Adapters for trainer libraries: ``sb3`` (Stable-Baselines3), ``rllib`` (Ray RLlib) and
``openspiel`` (the game for OpenSpiel). Each needs its library's extra."""
