"""What a run's results rest on besides the code, checked on every run.

* :mod:`~claims.inputs.manifest` and :mod:`~claims.inputs.digests`: the SHA-256
  manifest of the transcribed fixtures (``fixtures/recorded/MANIFEST.sha256``);
* :mod:`~claims.inputs.transcribed` and :mod:`~claims.inputs.typos`: transcribed
  values anchored where the documents print them, and the slips a transcriber makes;
* :mod:`~claims.inputs.anchors`: every stated figure of the catalog anchored to its
  printed text (``claims/catalog/<DOC>.anchors.toml``);
* :mod:`~claims.inputs.bundled`: the third-party fixtures (the author's lab, the Hub
  snapshot) against ``fixtures/BUNDLED.sha256``;
* :mod:`~claims.inputs.audit_result`: the mutation audit's last result
  (``reports/audit.json``), which the report shows.

They stand below the plugin (which checks them when it activates) and the audit
(which perturbs them), and above the catalog they read.
"""
