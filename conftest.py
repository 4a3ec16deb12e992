"""Root conftest: names the claims suite's pytest plugin for a checkout that is not installed.

Installed (pip install -e .), the plugin is a pytest11 entry point registered under the
name "claims.plugin", so naming it here again is a no-op; pytester serves the plugin
self-tests in tests/plugin (pytest accepts pytest_plugins only in the root conftest).
"""

pytest_plugins = ("claims.plugin", "pytester")
