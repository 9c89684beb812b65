"""The environments over the engine: ``aec`` (PettingZoo AEC), ``gym`` (Gymnasium single and vector
envs), ``learner`` (one learner seat against opponent agents, batched) and ``spaces``."""
