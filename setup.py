"""The one thing pyproject.toml cannot say: the solver's optional compiled core.

``varaq._fastsolver`` is a small C extension.  It is optional: where it cannot be built (no C
compiler, no Python headers) the install goes on without it and :mod:`varaq.solver` runs its pure
Python search, which is also the reference the compiled one is tested against.
"""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class _BuildExt(build_ext):
    """Optimise for speed where the compiler takes GCC/Clang flags; report a failure in one line."""

    def build_extension(self, ext: Extension) -> None:
        if self.compiler.compiler_type == "unix":
            ext.extra_compile_args = ["-O3", "-std=c11"]
        try:
            super().build_extension(ext)
        except Exception as exc:  # optional: fall back to the pure Python solver
            print(f"varaq: the compiled solver was not built ({exc}); the pure Python one is used")
            raise


setup(
    ext_modules=[Extension("varaq._fastsolver", ["src/varaq/_fastsolver.c"], optional=True)],
    cmdclass={"build_ext": _BuildExt},
)
