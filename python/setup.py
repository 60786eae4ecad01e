"""pip install ./python: the package with the libradiant.so that `make python` built (copied from the
checkout's build/ when the package folder does not have it yet)."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGED = os.path.join(HERE, "radiant", "libradiant.so")


class BuildWithLibrary(build_py):
    def run(self):
        given = os.environ.get("RADIANT_LIBRARY")
        if given or not os.path.exists(PACKAGED):
            built = given or os.path.join(HERE, "..", "build", "src", "capi", "libradiant.so")
            if not os.path.exists(built):
                raise SystemExit("radiant: libradiant.so is not built; run `make python` in the repository "
                                 "first (or set RADIANT_LIBRARY to a built libradiant.so)")
            shutil.copyfile(os.path.realpath(built), PACKAGED)
        super().run()


setup(cmdclass={"build_py": BuildWithLibrary})
