"""The names the environments are known by (their own module, so that every env can import
them without loading the package's ``__init__``)."""

#: The PettingZoo env's name (``env.metadata["name"]``), as its versioned module is called.
ENV_NAME = "age_of_summoners_v1"
#: The Gymnasium id that ``import aos_env`` registers.
GYM_ENV_ID = "aos_env/AgeOfSummoners-v1"
