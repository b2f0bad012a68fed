"""The language server of drama (`drama lsp`): `analysis` knows the files, `live` keeps the diagnostics, `server` speaks the protocol."""
