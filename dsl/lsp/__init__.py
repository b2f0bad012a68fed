"""The language server of drama (`drama lsp`): `analysis` knows the documents, `server` speaks the protocol."""
