"""The ground floor: what every layer may use and which imports nothing of the project.

- ``checks``: argument checks and ``ArgumentError``, the one way public entry points refuse a value;
- ``files``: atomic writes (a temporary name, renamed into place);
- ``names``: the env's names and ids;
- ``registry``: named agents as entry-point strings, so that the envs can take ``"greedy"`` without
  importing the ``agents`` package.
"""
