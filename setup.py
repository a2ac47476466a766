"""The one thing pyproject.toml cannot say: the coach's optional compiled kernel.

``coach/_ddkernel.c`` is built at ``pip install`` with the system's C compiler; where
there is none (or no Python headers) the build goes on without it and the coach runs
its pure-Python search, which passes the same tests (``docs/coach.md``).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("coach._ddkernel", ["coach/_ddkernel.c"], optional=True, extra_compile_args=["-O2"]),
    ],
)
