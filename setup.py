"""What pyproject.toml cannot say: the coach's optional compiled kernel, and the compiled catalogues.

``coach/_ddkernel.c`` is built at ``pip install`` with the system's C compiler; where
there is none (or no Python headers) the build goes on without it and the coach runs
its pure-Python search, which passes the same tests (``docs/coach.md``).

The players' words (``catalogue/locale/*/LC_MESSAGES/ecarte.po``) are compiled to ``.mo`` with
Babel before the packages are built (:mod:`catalogue.compile_po`), beside their ``.po``: a wheel
carries them as package data, and ``pip install -e .`` (which runs ``build_py`` too) leaves
them in the work tree, where :mod:`catalogue` reads them.
"""

import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class BuildWithCatalogues(build_py):
    """``build_py`` that compiles the catalogues first."""

    def run(self) -> None:
        sys.path.insert(0, str(HERE))
        try:
            from catalogue.compile_po import compile_all
        finally:
            sys.path.remove(str(HERE))
        for mo in compile_all(HERE / "catalogue" / "locale"):
            print(f"compiled {mo.relative_to(HERE)}")
        super().run()


setup(
    cmdclass={"build_py": BuildWithCatalogues},
    ext_modules=[
        Extension("coach._ddkernel", ["coach/_ddkernel.c"], optional=True, extra_compile_args=["-O2"]),
    ],
)
