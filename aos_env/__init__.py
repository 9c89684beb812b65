"""Age of Summoners for reinforcement learning.

``aos_env.core`` is the batched numpy rules engine; ``aos_env.cards`` the card data.
"""

__version__ = "0.1.0"
