"""Root conftest: loads the claims suite's pytest plugin for every test run here."""

pytest_plugins = ("claims.plugin",)
