"""Build hook for the optional accelerated core; all metadata lives in setup.cfg.

The C kernel ``emulator._fastcore`` is optional: where no compiler or Python headers exist the
build skips it and TowerLab falls back to the reference core with a one-line notice.
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("emulator._fastcore", ["emulator/_fastcore.c"],
                             extra_compile_args=["-O2", "-ffp-contract=off"], optional=True)])
