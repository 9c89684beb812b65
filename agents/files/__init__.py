"""The files of trained policies: reading, writing and converting them.

- ``model_file``: the model zips that ``train.py`` saves (read without running code from them).
- ``export``: a model zip as a numpy-only bot file (``python -m agents.files.export``).
- ``torch_bot``: a plain torch MLP as a bot file.
- ``trunk``: the shared trunk of ``train.py --shared-trunk`` (one network under both heads).

This package imports no module of its own: torch loads only when a module that needs it does.
"""
