"""Every library module imports on its own, first: no import cycle hides behind a lucky order."""

from __future__ import annotations

import subprocess
import sys

# Run in a child interpreter: dropping modules from sys.modules here would leave the test
# process with two copies of some classes and registries.
CHECK = """
import importlib, pkgutil, sys
import warroom
names = sorted(
    info.name
    for info in pkgutil.walk_packages(warroom.__path__, "warroom.")
    if ".tests" not in info.name and not info.name.endswith("_pb2_grpc")
)
failures = []
for name in names:
    for key in [k for k in sys.modules if k.startswith("warroom.") and "_pb2" not in k]:
        del sys.modules[key]
    try:
        importlib.import_module(name)
    except Exception as exc:
        failures.append(f"{name}: {type(exc).__name__}: {exc}")
print(len(names))
print("\\n".join(failures))
sys.exit(1 if failures else 0)
"""


def test_each_module_imports_first() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert int(done.stdout.split()[0]) > 50
