"""Root conftest: loads the claims suite's pytest plugin for every test run here."""

# pytester serves the plugin self-tests in tests/plugin (pytest accepts
# pytest_plugins only in the root conftest).
pytest_plugins = ("claims.plugin", "pytester")
