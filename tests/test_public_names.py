"""Every name a module of the layered packages lists in ``__all__`` is one it has: a name left
behind after a move (a table that went into the params, say) makes ``from module import *``
fail with an AttributeError for the user who writes it."""
from __future__ import annotations

import importlib
import warnings

import pytest

from tests.test_import_graph import module_files

# a __main__ module runs its program when imported
MODULES = sorted(n for n in module_files() if not n.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_every_name_in_a_modules_all_is_defined(name):
    module = importlib.import_module(name)
    with warnings.catch_warnings():
        # a module kept for an old import path answers its moved names with a warning
        warnings.simplefilter("ignore", DeprecationWarning)
        missing = [n for n in getattr(module, "__all__", ()) if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names what it does not define: {missing}"
