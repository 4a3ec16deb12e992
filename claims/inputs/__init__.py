"""What a run's results rest on besides the code, checked on every run.

* :mod:`~claims.inputs.manifest`: the SHA-256 manifest of the transcribed fixtures
  (``fixtures/recorded/MANIFEST.sha256``), whose values :mod:`claims.text.transcribed`
  anchors where the documents print them;
* :mod:`~claims.inputs.bundled`: the third-party fixtures (the author's lab, the Hub
  snapshot) against ``fixtures/BUNDLED.sha256``;
* :mod:`~claims.inputs.audit_digest` and :mod:`~claims.inputs.audit_result`: the digest a
  kept audit result is reused on, and the mutation audit's last result
  (``reports/audit.json``), which the report shows.

The documents' text itself (the anchors, the transcriptions, the count of every printed
figure) is :mod:`claims.text`, which these read. They stand below the plugin (which checks
them when it activates) and the audit (which perturbs them), and above the text and the
catalog they read.
"""
