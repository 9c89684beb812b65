"""The optional extras: an import that fails for want of one names its ``pip install`` line.

try:
    import pyspiel
except ImportError as e:
    raise missing_extra(e, "openspiel", "aos_env.integrations.openspiel") from e
"""

from __future__ import annotations

#: The package the extras belong to, as pip names it.
PACKAGE = "aos-env"


class MissingExtraError(ModuleNotFoundError):
    """A module of an optional extra is not installed; the message says which extra and how to install it."""


def install_line(extra: str) -> str:
    """The command that installs ``extra``: ``pip install "aos-env[extra]"``."""
    return f'pip install "{PACKAGE}[{extra}]"'


def missing_extra(error: ImportError, extra: str, what: str) -> MissingExtraError:
    """The error to raise (``from error``) when ``what`` cannot import a module of ``extra``.

    A ``ModuleNotFoundError`` still (code that catches ImportError keeps working), with the missing
    module's name, the extra and its install line in one sentence.
    """
    module = (getattr(error, "name", None) or "a module").split(".")[0]
    return MissingExtraError(
        f"{what} needs the {extra!r} extra ({module!r} is not installed): {install_line(extra)} "
        f'(or, in a checkout, pip install -e ".[{extra}]")',
        name=getattr(error, "name", None),
    )
